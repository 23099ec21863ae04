package org.nccl4j.core.topo.connect;

import java.util.Arrays;

/** A channel's CollNet links ({@code struct ncclDirect}). */
public final class CollTree {
    /** {@code NCCL_MAX_DIRECT_ARITY}. */
    public static final int MAX_ARITY = 7;

    /** 1 when this rank talks to no peer, else 2. */
    public int depth;
    /** The network root ({@code nRanks}) on a head rank, else -1. */
    public int out = -1;
    /** Number of heads (CollNet graph channels). */
    public int nHeads;
    /** This rank's head index, -1 if it is no head. */
    public int headRank = -1;
    /** Offset so that leaves do not all send to the same head at once. */
    public int shift;
    /** The other heads. */
    public final int[] up = new int[MAX_ARITY];
    /** The local ranks a head serves. */
    public final int[] down = new int[MAX_ARITY];

    /** Creates cleared links. */
    public CollTree() {
        reset();
    }

    void reset() {
        out = -1;
        headRank = -1;
        nHeads = 0;
        shift = 0;
        Arrays.fill(up, -1);
        Arrays.fill(down, -1);
    }

    void copyFrom(CollTree src) {
        depth = src.depth;
        out = src.out;
        nHeads = src.nHeads;
        headRank = src.headRank;
        shift = src.shift;
        System.arraycopy(src.up, 0, up, 0, MAX_ARITY);
        System.arraycopy(src.down, 0, down, 0, MAX_ARITY);
    }
}
