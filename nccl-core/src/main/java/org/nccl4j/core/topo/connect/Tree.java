package org.nccl4j.core.topo.connect;

import java.util.Arrays;

/** A channel's tree links ({@code struct ncclTree}). */
public final class Tree {
    /** {@code NCCL_MAX_TREE_ARITY}. */
    public static final int MAX_ARITY = 3;

    /** Approximate tree depth. */
    public int depth;
    /** Parent rank, -1 for the root. */
    public int up = -1;
    /** Child ranks, -1 in unused slots. */
    public final int[] down = {-1, -1, -1};

    void reset() {
        up = -1;
        Arrays.fill(down, -1);
    }

    void copyFrom(Tree src) {
        depth = src.depth;
        up = src.up;
        System.arraycopy(src.down, 0, down, 0, MAX_ARITY);
    }
}
