package org.nccl4j.core.topo.connect;

/**
 * One rank's place in a binary tree of nodes.
 *
 * @param up        parent, -1 for the root
 * @param down0     first child, -1 if none
 * @param down1     second child, -1 if none
 * @param childType 0 if this rank is its parent's first child, 1 if the second;
 *                  {@link #NO_PARENT} at the root, where NCCL leaves the value unwritten
 */
public record BinaryTreeLinks(int up, int down0, int down1, int childType) {
    /** {@link #childType} of a root. */
    public static final int NO_PARENT = -1;
}
