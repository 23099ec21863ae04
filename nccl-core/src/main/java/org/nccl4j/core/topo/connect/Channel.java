package org.nccl4j.core.topo.connect;

/** One channel's connection plan ({@code struct ncclChannel}'s ring, tree and collTree). */
public final class Channel {
    /** Ring links. */
    public final Ring ring = new Ring();
    /** Tree links. */
    public final Tree tree = new Tree();
    /** CollNet links. */
    public final CollTree collTree = new CollTree();

    /**
     * Copies every link of {@code src} into this channel (the C code's {@code memcpy} of a channel).
     *
     * @param src the channel to copy
     */
    public void copyFrom(Channel src) {
        ring.copyFrom(src.ring);
        tree.copyFrom(src.tree);
        collTree.copyFrom(src.collTree);
    }
}
