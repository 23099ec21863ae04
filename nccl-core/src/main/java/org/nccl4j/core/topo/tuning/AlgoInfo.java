package org.nccl4j.core.topo.tuning;

import org.nccl4j.core.proto.Protocol;

/**
 * The outcome of {@link AlgoSelector#select}: how one collective call runs.
 *
 * @param algorithm the algorithm, {@code null} for a single-rank communicator
 * @param protocol  the protocol, {@code null} for a single-rank communicator
 * @param nChannels channels to use
 * @param nThreads  threads per channel (0 when no algorithm was chosen)
 */
public record AlgoInfo(Algorithm algorithm, Protocol protocol, int nChannels, int nThreads) {
}
