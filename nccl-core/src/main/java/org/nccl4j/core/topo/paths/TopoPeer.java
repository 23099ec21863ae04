package org.nccl4j.core.topo.paths;

/**
 * The part of NCCL's {@code struct ncclPeerInfo} the topology code reads.
 *
 * @param rank       the rank
 * @param cudaDev    its CUDA device index
 * @param gdrSupport whether its GPU supports GPU Direct RDMA
 * @param hostHash   host identity (same host: same value)
 * @param pidHash    process identity
 * @param shmDev     device of {@code /dev/shm} (same value: shared memory works)
 * @param busId      its GPU's numeric PCI bus id
 */
public record TopoPeer(int rank, int cudaDev, boolean gdrSupport, long hostHash, long pidHash, long shmDev, long busId) {
}
