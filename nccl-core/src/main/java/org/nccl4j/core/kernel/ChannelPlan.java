package org.nccl4j.core.kernel;

import java.util.Arrays;

/**
 * What one channel connects, as the topology decided it ({@code ncclChannel.ring} and
 * {@code ncclChannel.tree}): the ring order and this rank's place in the channel's tree.
 *
 * @param id             channel id (0..31)
 * @param ringUserRanks  the ring's ranks in order, starting at this rank ({@code ring.userRanks})
 * @param treeUp         this rank's parent in the tree, or -1 at the root
 * @param treeDown       its children, at most {@link #MAX_TREE_ARITY} (no -1 entries)
 * @param treeDepth      the tree's depth ({@code tree.depth}: hops from the root to the farthest leaf)
 */
public record ChannelPlan(int id, int[] ringUserRanks, int treeUp, int[] treeDown, int treeDepth) {
    /** Most children of a tree node ({@code NCCL_MAX_TREE_ARITY}). */
    public static final int MAX_TREE_ARITY = 3;

    /** Copies the arrays. */
    public ChannelPlan {
        ringUserRanks = ringUserRanks.clone();
        treeDown = treeDown.clone();
    }

    @Override
    public int[] ringUserRanks() {
        return ringUserRanks.clone();
    }

    @Override
    public int[] treeDown() {
        return treeDown.clone();
    }

    @Override
    public String toString() {
        return "channel " + id + " ring " + Arrays.toString(ringUserRanks) + " tree up " + treeUp + " down "
                + Arrays.toString(treeDown);
    }
}
