package org.nccl4j.core.topo.system;

/**
 * A directed link ({@code struct ncclTopoLink}). The width is mutable: the search debits and
 * credits it while it explores channels.
 */
public final class TopoLink {
    /** Link type ({@link LinkType}). */
    public int type;
    /** Bandwidth in GB/s. */
    public float width;
    /** The node at the other end. */
    public TopoNode remNode;

    /**
     * @param type    link type
     * @param width   bandwidth
     * @param remNode the remote node
     */
    public TopoLink(int type, float width, TopoNode remNode) {
        this.type = type;
        this.width = width;
        this.remNode = remNode;
    }
}
