package org.nccl4j.core.topo.tuning;

/**
 * What the tuning model needs to know about a communicator besides its graphs.
 *
 * @param rank           this rank (rank 0 logs the table)
 * @param nRanks         ranks in the communicator
 * @param nNodes         nodes
 * @param nChannels      the communicator's channels after Postset (scales per-call channel counts)
 * @param collNetSupport 1 if CollNet is used
 * @param collNetHeads   {@code channels[0].collTree.nHeads} (CollNet channel sizing)
 * @param minCompCap     lowest GPU compute capability over all ranks (e.g. 70, 80)
 * @param maxCompCap     highest GPU compute capability over all ranks
 * @param cpu            the first CPU's type
 */
public record TuningContext(int rank, int nRanks, int nNodes, int nChannels, int collNetSupport, int collNetHeads,
                            int minCompCap, int maxCompCap, CpuType cpu) {
}
