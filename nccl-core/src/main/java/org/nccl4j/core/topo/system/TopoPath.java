package org.nccl4j.core.topo.system;

import java.util.Arrays;

/**
 * A precomputed route ({@code struct ncclTopoLinkList}): the links followed from a node to a
 * target, the bottleneck width and the path type.
 */
public final class TopoPath {
    /** The links, {@code count} of them. */
    public TopoLink[] list = new TopoLink[4];
    /** Number of links (0: no path, or the node itself). */
    public int count;
    /** Bottleneck bandwidth (0: not reached). */
    public float width;
    /** Path type ({@link PathType}). */
    public int type;

    /** An empty path (not reached). */
    public TopoPath() {
    }

    /**
     * Grows {@link #list} so it holds at least {@code n} links.
     *
     * @param n the needed capacity
     */
    public void ensure(int n) {
        if (list.length < n) {
            list = Arrays.copyOf(list, Math.max(n, list.length * 2));
        }
    }
}
