package org.nccl4j.core.device;

import java.util.Arrays;

/**
 * One channel as the topology search built it, seen from this rank ({@code ncclChannel.ring} and
 * {@code ncclChannel.tree}): what a device backend connects.
 *
 * @param ring     the ranks by distance from this one along the ring ({@code [0]} is this rank), as
 *                 NCCL's {@code ring->devUserRanks}
 * @param treeUp   this rank's parent in the channel's tree, or -1 at the root
 * @param treeDown its children (at most 3, NCCL's {@code NCCL_MAX_TREE_ARITY})
 */
public record DeviceChannel(int[] ring, int treeUp, int[] treeDown) {
    /** Copies the arrays. */
    public DeviceChannel {
        ring = ring.clone();
        treeDown = treeDown.clone();
    }

    @Override
    public int[] ring() {
        return ring.clone();
    }

    @Override
    public int[] treeDown() {
        return treeDown.clone();
    }

    @Override
    public String toString() {
        return "ring " + Arrays.toString(ring) + " tree up " + treeUp + " down " + Arrays.toString(treeDown);
    }
}
