package org.nccl4j.core.topo.connect;

import org.nccl4j.core.topo.search.TopoGraph;

/**
 * The part of a rank's {@code ncclComm} that connection reads and writes: identity, node
 * layout, channel count and the {@link TopoGraph#MAXCHANNELS} channels.
 */
public final class ChannelTopology {
    /** This rank. */
    public final int rank;
    /** Ranks in the communicator. */
    public final int nRanks;
    /** GPUs of this rank's node (after trimming the system). */
    public final int localRanks;
    /** Channels in use. */
    public int nChannels;
    /** Nodes found by {@link NodeLayout}. */
    public int nNodes;
    /** This rank's node index. */
    public int node;
    /** 1 if CollNet is used. */
    public int collNetSupport;
    private final Channel[] channels = new Channel[TopoGraph.MAXCHANNELS];

    /**
     * @param rank       this rank
     * @param nRanks     ranks in the communicator
     * @param localRanks GPUs of this rank's node
     */
    public ChannelTopology(int rank, int nRanks, int localRanks) {
        this.rank = rank;
        this.nRanks = nRanks;
        this.localRanks = localRanks;
        for (int c = 0; c < channels.length; c++) {
            channels[c] = new Channel();
        }
    }

    /**
     * @param c a channel index below {@link TopoGraph#MAXCHANNELS}
     * @return that channel
     */
    public Channel channel(int c) {
        return channels[c];
    }
}
