package org.nccl4j.core.topo.connect;

import org.nccl4j.core.topo.search.TopoGraph;

/** {@code ncclTopoPreset}: a rank's intra-node ring and tree links, before any peer is known. */
public final class Preset {
    private Preset() {
    }

    /**
     * Clears channels {@code [0, comm.nChannels)}, links this rank to its neighbours in the node's
     * ring and tree chains, and copies those channels to {@code [nChannels, 2 nChannels)} (the
     * second half later gets the second tree of the double binary tree).
     *
     * @param comm      this rank's channels; {@code nChannels} must already be min(tree, ring)
     * @param treeGraph the tree graph of this rank's node (intra holds global ranks)
     * @param ringGraph the ring graph of this rank's node
     * @return what this rank contributes to the all-gather
     */
    public static TopoRanks run(ChannelTopology comm, TopoGraph treeGraph, TopoGraph ringGraph) {
        TopoRanks topoRanks = new TopoRanks();
        int rank = comm.rank;
        int localRanks = comm.localRanks;
        int nChannels = comm.nChannels;
        // Which GPU of a tree channel carries the links to child nodes depends on the pattern.
        int child0Index = treeGraph.pattern == TopoGraph.PATTERN_TREE ? 0 : 1;
        int child1Index = treeGraph.pattern == TopoGraph.PATTERN_SPLIT_TREE ? 1 : 0;
        for (int c = 0; c < nChannels; c++) {
            Channel channel = comm.channel(c);
            channel.ring.prev = -1;
            channel.ring.next = -1;
            channel.tree.reset();
            channel.collTree.reset();
            int base = c * localRanks;
            int last = localRanks - 1;
            for (int i = 0; i < localRanks; i++) {
                if (ringGraph.intra[base + i] == rank) {
                    topoRanks.ringRecv[c] = ringGraph.intra[base];
                    topoRanks.ringSend[c] = ringGraph.intra[base + last];
                    channel.ring.prev = i == 0 ? -1 : ringGraph.intra[base + i - 1];
                    channel.ring.next = i == last ? -1 : ringGraph.intra[base + i + 1];
                }
                if (treeGraph.intra[base + i] == rank) {
                    topoRanks.treeToParent[c] = treeGraph.intra[base];
                    topoRanks.treeToChild0[c] = treeGraph.intra[base + child0Index];
                    topoRanks.treeToChild1[c] = treeGraph.intra[base + child1Index];
                    channel.tree.up = i == 0 ? -1 : treeGraph.intra[base + i - 1];
                    channel.tree.down[0] = i == last ? -1 : treeGraph.intra[base + i + 1];
                }
            }
            topoRanks.ringPrev[c] = channel.ring.prev;
            topoRanks.ringNext[c] = channel.ring.next;
        }
        for (int c = 0; c < nChannels; c++) {
            comm.channel(nChannels + c).copyFrom(comm.channel(c));
        }
        return topoRanks;
    }
}
