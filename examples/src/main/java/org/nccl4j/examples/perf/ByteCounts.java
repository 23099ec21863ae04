package org.nccl4j.examples.perf;

/**
 * Element counts of one collective call at one size, as nccl-tests' {@code getCollByteCount}.
 *
 * @param sendCount         elements each rank sends from
 * @param recvCount         elements each rank receives (and the check compares)
 * @param paramCount        the count passed to the collective (per rank for AllGather,
 *                          ReduceScatter and AlltoAll)
 * @param sendInplaceOffset in place, the send buffer is the receive buffer plus this many
 *                          elements times the rank
 * @param recvInplaceOffset in place, the receive buffer is the (shared) buffer plus this many
 *                          elements times the rank
 */
public record ByteCounts(long sendCount, long recvCount, long paramCount, long sendInplaceOffset,
                         long recvInplaceOffset) {
}
