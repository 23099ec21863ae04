package org.nccl4j.core.device;

import org.nccl4j.core.proto.Protocol;

/**
 * How one collective runs on the device, computed by the engine as it runs the same call on the
 * host backend (NCCL's {@code getAlgoInfo} and {@code computeColl}): the algorithm and protocol
 * the tuning model chose ({@code NCCL_ALGO}/{@code NCCL_PROTO} honoured), the channels, and the
 * chunking, so that both backends split data, and so order reductions, identically.
 *
 * @param tree        Tree (AllReduce only) rather than Ring
 * @param protocol    the protocol
 * @param nChannels   channels the call runs on, 1 to the communicator's
 * @param stepBytes   bytes of one FIFO slot of the protocol's buffer (lines included)
 * @param chunk       elements (of {@code unit} bytes) per chunk
 * @param align       Ring: chunks are rounded up to a multiple of this many elements; Tree: 1
 * @param interleaved Ring AllReduce places chunk {@code c} of channel {@code b} at
 *                    {@code c * nChannels + b} (LL, LL128) rather than {@code b * nranks + c} (Simple)
 * @param unit        bytes per element the kernel moves: 1 for Broadcast and AllGather, else the type's size
 */
public record DeviceCollPlan(boolean tree, Protocol protocol, int nChannels, int stepBytes, long chunk, long align,
                             boolean interleaved, int unit) {
}
