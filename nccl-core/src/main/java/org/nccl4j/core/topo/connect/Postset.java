package org.nccl4j.core.topo.connect;

import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.topo.search.TopoGraph;

/**
 * {@code ncclTopoPostset}: joins the nodes' ring segments into rings, hangs the nodes' tree
 * chains on a double binary tree, doubles the channels (second half uses the second tree),
 * optionally adds CollNet channels, applies the user's channel bounds and builds the rings.
 */
public final class Postset {
    private static final int MAXCHANNELS = TopoGraph.MAXCHANNELS;

    private Postset() {
    }

    /**
     * @param comm          this rank's channels after {@link Preset}, with nNodes/node set and
     *                      {@code nChannels} the aligned (not yet doubled) count
     * @param firstRanks    each node's key rank ({@link NodeLayout#firstRanks()})
     * @param treePatterns  each node's tree pattern (accepted as NCCL does, unused: the pattern
     *                      already shaped {@link TopoRanks})
     * @param allTopoRanks  every rank's {@link TopoRanks}, by rank
     * @param collNetGraph  this node's CollNet graph (used only with {@code collNetSupport == 1})
     * @param limits        the user's channel bounds
     * @return {@code rings[c * nRanks + i]}: channel c's ring from this rank, for the final
     *         {@code comm.nChannels} channels
     * @throws NcclException with {@link Result#INTERNAL_ERROR} if a tree node gets more than 3
     *                       children or a ring is broken
     */
    public static int[] run(ChannelTopology comm, int[] firstRanks, int[] treePatterns, TopoRanks[] allTopoRanks,
                            TopoGraph collNetGraph, ChannelLimits limits) {
        int nRanks = comm.nRanks;
        int nChannels = comm.nChannels;
        int size = nRanks * MAXCHANNELS;
        int[] ringRecv = new int[size];
        int[] ringSend = new int[size];
        int[] ringPrev = new int[size];
        int[] ringNext = new int[size];
        int[] treeToParent = new int[size];
        int[] treeToChild0 = new int[size];
        int[] treeToChild1 = new int[size];
        for (int i = 0; i < nRanks; i++) {
            TopoRanks t = allTopoRanks[i];
            for (int c = 0; c < nChannels; c++) {
                int k = c * nRanks + i;
                ringRecv[k] = t.ringRecv[c];
                ringSend[k] = t.ringSend[c];
                ringPrev[k] = t.ringPrev[c];
                ringNext[k] = t.ringNext[c];
                treeToParent[k] = t.treeToParent[c];
                treeToChild0[k] = t.treeToChild0[c];
                treeToChild1[k] = t.treeToChild1[c];
            }
        }

        connectRings(comm, ringRecv, ringSend, ringPrev, ringNext, firstRanks);
        connectTrees(comm, treeToParent, treeToChild0, treeToChild1, firstRanks);

        // The second half of the channels runs the same rings.
        System.arraycopy(ringPrev, 0, ringPrev, nChannels * nRanks, nChannels * nRanks);
        System.arraycopy(ringNext, 0, ringNext, nChannels * nRanks, nChannels * nRanks);
        nChannels = comm.nChannels = Math.min(MAXCHANNELS, nChannels * 2);

        if (comm.collNetSupport == 1) {
            // More channels saturate the intra-node links, except with one rank per node.
            if (collNetGraph.speedIntra > collNetGraph.speedInter && comm.nRanks > comm.nNodes) {
                int collNetNchannels = Math.min(MAXCHANNELS, nChannels + nChannels / 2);
                nChannels = comm.nChannels = copyChannels(comm, nChannels, collNetNchannels, ringPrev, ringNext);
            }
            CollNetConnector.connect(comm, collNetGraph);
        }

        // Truncating to the maximum first lets max + min run copies of the first channels only.
        nChannels = comm.nChannels = Math.min(limits.max(), nChannels);
        nChannels = comm.nChannels = copyChannels(comm, nChannels, limits.min(), ringPrev, ringNext);

        return RingBuilder.build(nChannels, comm.rank, nRanks, ringPrev, ringNext);
    }

    private static void connectRings(ChannelTopology comm, int[] ringRecv, int[] ringSend, int[] ringPrev,
                                     int[] ringNext, int[] firstRanks) {
        int nChannels = comm.nChannels;
        int nNodes = comm.nNodes;
        int nRanks = comm.nRanks;
        for (int c = 0; c < nChannels; c++) {
            int base = c * nRanks;
            Channel channel0 = comm.channel(c);
            Channel channel1 = comm.channel(c + nChannels);
            for (int n = 0; n < nNodes; n++) {
                int recvRank = ringRecv[base + firstRanks[n]];
                int prevSendRank = ringSend[base + firstRanks[(n - 1 + nNodes) % nNodes]];
                ringPrev[base + recvRank] = prevSendRank;
                if (comm.rank == recvRank) {
                    channel0.ring.prev = prevSendRank;
                    channel1.ring.prev = prevSendRank;
                }
                int sendRank = ringSend[base + firstRanks[n]];
                int nextRecvRank = ringRecv[base + firstRanks[(n + 1) % nNodes]];
                ringNext[base + sendRank] = nextRecvRank;
                if (comm.rank == sendRank) {
                    channel0.ring.next = nextRecvRank;
                    channel1.ring.next = nextRecvRank;
                }
            }
            Log.trace(Subsys.GRAPH, "Ring %d : %d -> %d -> %d", c, channel0.ring.prev, comm.rank, channel0.ring.next);
            Log.trace(Subsys.GRAPH, "Ring %d : %d -> %d -> %d", c + nChannels, channel1.ring.prev, comm.rank,
                    channel1.ring.next);
        }
    }

    private static void connectTrees(ChannelTopology comm, int[] treeToParent, int[] treeToChild0,
                                     int[] treeToChild1, int[] firstRanks) {
        int nChannels = comm.nChannels;
        int nNodes = comm.nNodes;
        int node = comm.node;
        int nRanks = comm.nRanks;
        // An approximation NCCL uses for chunk sizing.
        int depth = nRanks / nNodes - 1 + log2i(nNodes);
        DoubleBinaryTree.Links dtree = DoubleBinaryTree.dtree(nNodes, node);
        BinaryTreeLinks t0 = dtree.tree0();
        BinaryTreeLinks t1 = dtree.tree1();
        int[] toParent = new int[nNodes];
        int[] toChild0 = new int[nNodes];
        int[] toChild1 = new int[nNodes];
        for (int c = 0; c < nChannels; c++) {
            Tree tree0 = comm.channel(c).tree;
            Tree tree1 = comm.channel(c + nChannels).tree;
            for (int n = 0; n < nNodes; n++) {
                toParent[n] = treeToParent[c * nRanks + firstRanks[n]];
                toChild0[n] = treeToChild0[c * nRanks + firstRanks[n]];
                toChild1[n] = treeToChild1[c * nRanks + firstRanks[n]];
            }
            if (comm.rank == toParent[node]) {
                setUp(tree0, t0.childType() == 0 ? toChild0 : toChild1, t0.up());
                setUp(tree1, t1.childType() == 0 ? toChild0 : toChild1, t1.up());
            }
            if (comm.rank == toChild0[node]) {
                addDown(tree0, toParent, t0.down0());
                addDown(tree1, toParent, t1.down0());
            }
            if (comm.rank == toChild1[node]) {
                addDown(tree0, toParent, t0.down1());
                addDown(tree1, toParent, t1.down1());
            }
            if (comm.rank == toParent[node] || comm.rank == toChild0[node] || comm.rank == toChild1[node]) {
                Log.info(Subsys.GRAPH, "Tree %d : %d -> %d -> %d/%d/%d", c, tree0.up, comm.rank,
                        tree0.down[0], tree0.down[1], tree0.down[2]);
                Log.info(Subsys.GRAPH, "Tree %d : %d -> %d -> %d/%d/%d", c + nChannels, tree1.up, comm.rank,
                        tree1.down[0], tree1.down[1], tree1.down[2]);
            }
            tree0.depth = depth;
            tree1.depth = depth;
        }
    }

    private static void setUp(Tree tree, int[] ranksOfNodes, int upNode) {
        if (upNode != -1) {
            tree.up = ranksOfNodes[upNode];
        }
    }

    private static void addDown(Tree tree, int[] ranksOfNodes, int downNode) {
        if (downNode == -1) {
            return;
        }
        int x = 0;
        while (x < Tree.MAX_ARITY && tree.down[x] >= 0) {
            x++;
        }
        if (x == Tree.MAX_ARITY) {
            throw NcclException.of(Result.INTERNAL_ERROR, String.format(
                    "Internal error : tree already has %d children (%d %d %d)", x, tree.down[0], tree.down[1],
                    tree.down[2]), null);
        }
        tree.down[x] = ranksOfNodes[downNode];
    }

    /** Channels {@code [start, end)} become copies of {@code [0, end - start)}; returns the new count. */
    private static int copyChannels(ChannelTopology comm, int start, int end, int[] ringPrev, int[] ringNext) {
        int nRanks = comm.nRanks;
        int c;
        for (c = start; c < end; c++) {
            System.arraycopy(ringPrev, (c - start) * nRanks, ringPrev, c * nRanks, nRanks);
            System.arraycopy(ringNext, (c - start) * nRanks, ringNext, c * nRanks, nRanks);
            comm.channel(c).copyFrom(comm.channel(c - start));
        }
        return c;
    }

    /** {@code log2i}: floor(log2 n) for n &ge; 1, 0 below. */
    static int log2i(long n) {
        int l = 0;
        while ((n >>= 1) != 0) {
            l++;
        }
        return l;
    }
}
