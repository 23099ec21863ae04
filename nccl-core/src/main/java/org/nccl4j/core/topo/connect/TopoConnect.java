package org.nccl4j.core.topo.connect;

import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.topo.search.TopoGraph;

/**
 * The connection steps of {@code initTransportsRank} (v2.10.3) around the all-gather of
 * {@link RankConnectInfo}: {@link #preset} before it, {@link #postset} after it.
 */
public final class TopoConnect {
    private TopoConnect() {
    }

    /**
     * Sets {@code comm.nChannels = min(tree, ring)} and runs {@link Preset}.
     *
     * @param comm    this rank's channels, {@code collNetSupport} set to the local support
     * @param tree    this rank's tree graph
     * @param ring    this rank's ring graph
     * @param collNet this rank's CollNet graph
     * @return this rank's all-gather entry (graph summaries taken before any alignment)
     */
    public static RankConnectInfo preset(ChannelTopology comm, TopoGraph tree, TopoGraph ring, TopoGraph collNet) {
        GraphInfo treeInfo = GraphInfo.of(tree);
        GraphInfo ringInfo = GraphInfo.of(ring);
        GraphInfo collNetInfo = GraphInfo.of(collNet);
        comm.nChannels = Math.min(tree.nChannels, ring.nChannels);
        TopoRanks topoRanks = Preset.run(comm, tree, ring);
        return new RankConnectInfo(comm.collNetSupport, treeInfo, ringInfo, collNetInfo, topoRanks);
    }

    /**
     * {@link #postset(ChannelTopology, RankConnectInfo[], TopoGraph, TopoGraph, TopoGraph, int, ChannelLimits)}
     * with {@code NCCL_COLLNET_NODE_THRESHOLD}, {@code NCCL_MIN_NCHANNELS} and
     * {@code NCCL_MAX_NCHANNELS} read from {@code config}.
     *
     * @param comm    this rank's channels after {@link #preset}
     * @param all     every rank's all-gather entry, by rank
     * @param tree    this rank's tree graph, aligned in place
     * @param ring    this rank's ring graph, aligned in place
     * @param collNet this rank's CollNet graph, aligned in place
     * @param config  parameters
     * @return the rings ({@code rings[c * nRanks + i]})
     */
    public static int[] postset(ChannelTopology comm, RankConnectInfo[] all, TopoGraph tree, TopoGraph ring,
                                TopoGraph collNet, Config config) {
        return postset(comm, all, tree, ring, collNet, (int) config.integer(Params.COLLNET_NODE_THRESHOLD),
                ChannelLimits.fromConfig(config));
    }

    /**
     * Detects the nodes, aligns the graphs over all ranks, shrinks the channels to the aligned
     * min(tree, ring) (moving Preset's duplicated channels down), disables CollNet below the node
     * threshold, runs {@link Postset} and orders each channel's ring from this rank
     * ({@link Ring#setUserRanks}).
     *
     * @param comm                 this rank's channels after {@link #preset}
     * @param all                  every rank's all-gather entry, by rank
     * @param tree                 this rank's tree graph, aligned in place (nChannels = the aligned min)
     * @param ring                 this rank's ring graph, aligned in place
     * @param collNet              this rank's CollNet graph, aligned in place
     * @param collNetNodeThreshold fewest nodes for CollNet
     * @param limits               the user's channel bounds
     * @return the rings ({@code rings[c * nRanks + i]}, {@code comm.nChannels} channels)
     */
    public static int[] postset(ChannelTopology comm, RankConnectInfo[] all, TopoGraph tree, TopoGraph ring,
                                TopoGraph collNet, int collNetNodeThreshold, ChannelLimits limits) {
        NodeLayout layout = NodeLayout.detect(all);
        comm.nNodes = layout.nNodes();
        comm.node = layout.nodeOfRank()[comm.rank];

        int nChannelsOrig = comm.nChannels;
        TopoRanks[] allTopoRanks = new TopoRanks[all.length];
        for (int i = 0; i < all.length; i++) {
            allTopoRanks[i] = all[i].topoRanks();
        }
        GraphAlignment.align(all, tree, ring, collNet, comm);
        comm.nChannels = tree.nChannels = ring.nChannels = Math.min(tree.nChannels, ring.nChannels);
        if (comm.nChannels < nChannelsOrig) {
            // Preset duplicated channels at [nChannelsOrig, 2 nChannelsOrig); move them next to the kept ones.
            for (int i = 0; i < comm.nChannels; i++) {
                comm.channel(comm.nChannels + i).copyFrom(comm.channel(nChannelsOrig + i));
            }
        }
        if (comm.nNodes < collNetNodeThreshold) {
            if (comm.collNetSupport == 1) {
                Log.info(Subsys.INIT, "Communicator has %d nodes which is less than CollNet node threshold %d, disabling CollNet",
                        comm.nNodes, collNetNodeThreshold);
            }
            comm.collNetSupport = 0;
        }

        int[] rings = Postset.run(comm, layout.firstRanks(), layout.treePatterns(), allTopoRanks, collNet, limits);
        logChannels(comm);
        for (int c = 0; c < comm.nChannels; c++) {
            int[] ringRanks = new int[comm.nRanks];
            System.arraycopy(rings, c * comm.nRanks, ringRanks, 0, comm.nRanks);
            comm.channel(c).ring.setUserRanks(comm.rank, ringRanks);
        }
        return rings;
    }

    private static void logChannels(ChannelTopology comm) {
        StringBuilder trees = new StringBuilder();
        for (int c = 0; c < comm.nChannels; c++) {
            Channel ch = comm.channel(c);
            trees.append(String.format(" [%d] %d/%d/%d->%d->%d", c, ch.tree.down[0], ch.tree.down[1], ch.tree.down[2],
                    comm.rank, ch.tree.up));
            Log.info(Subsys.GRAPH, "Ring %02d : %d -> %d -> %d", c, ch.ring.prev, comm.rank, ch.ring.next);
        }
        // NCCL formats into a 1024-byte buffer.
        String line = trees.length() > 1022 ? trees.substring(0, 1022) : trees.toString();
        Log.info(Subsys.INIT, "Trees%s", line);
    }
}
