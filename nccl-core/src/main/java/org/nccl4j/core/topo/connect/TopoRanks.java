package org.nccl4j.core.topo.connect;

import org.nccl4j.core.topo.search.TopoGraph;

/**
 * What one rank contributes per channel to the connection all-gather ({@code struct ncclTopoRanks}):
 * its node's ring ends and its own ring neighbours, and its node's tree attachment ranks.
 */
public final class TopoRanks {
    /** First rank of the node's ring segment (receives from the previous node). */
    public final int[] ringRecv = new int[TopoGraph.MAXCHANNELS];
    /** Last rank of the node's ring segment (sends to the next node). */
    public final int[] ringSend = new int[TopoGraph.MAXCHANNELS];
    /** This rank's intra-node ring predecessor, -1 at the segment start. */
    public final int[] ringPrev = new int[TopoGraph.MAXCHANNELS];
    /** This rank's intra-node ring successor, -1 at the segment end. */
    public final int[] ringNext = new int[TopoGraph.MAXCHANNELS];
    /** The node's rank that talks to the parent node. */
    public final int[] treeToParent = new int[TopoGraph.MAXCHANNELS];
    /** The node's rank that talks to child node 0. */
    public final int[] treeToChild0 = new int[TopoGraph.MAXCHANNELS];
    /** The node's rank that talks to child node 1. */
    public final int[] treeToChild1 = new int[TopoGraph.MAXCHANNELS];
}
