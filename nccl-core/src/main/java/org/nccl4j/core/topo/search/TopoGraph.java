package org.nccl4j.core.topo.search;

/**
 * NCCL's {@code struct ncclTopoGraph} (v2.10.3): the request (id, pattern, crossNic, collNet,
 * channel bounds) and the result of a search (channels, speeds, path types, the GPU ranks of
 * every channel in {@code intra} and the NET ids at each channel's ends in {@code inter}).
 *
 * <p>Fields are public and mutable on purpose: the search fills them step by step and restores
 * them on backtrack exactly as the C code does, and the golden outputs depend on that order.
 */
public final class TopoGraph {
    /** {@code MAXCHANNELS}. */
    public static final int MAXCHANNELS = 32;
    /** {@code NCCL_TOPO_MAX_NODES}. */
    public static final int MAX_NODES = 256;

    /** {@code NCCL_TOPO_PATTERN_BALANCED_TREE}: spread NIC traffic between GPUs (one up, one down). */
    public static final int PATTERN_BALANCED_TREE = 1;
    /** {@code NCCL_TOPO_PATTERN_SPLIT_TREE}: spread NIC traffic between GPUs (up and down on different GPUs). */
    public static final int PATTERN_SPLIT_TREE = 2;
    /** {@code NCCL_TOPO_PATTERN_TREE}: all NIC traffic through the same GPU. */
    public static final int PATTERN_TREE = 3;
    /** {@code NCCL_TOPO_PATTERN_RING}: ring. */
    public static final int PATTERN_RING = 4;

    /** Graph id: 0 ring, 1 tree, 2 collnet. */
    public int id;
    /** One of the {@code PATTERN_*} codes. */
    public int pattern;
    /** 0 never, 1 always, 2 as a relaxation ({@code NCCL_CROSS_NIC}). */
    public int crossNic;
    /** 1 for the CollNet graph. */
    public int collNet;
    /** Fewest channels wanted. */
    public int minChannels;
    /** Most channels wanted. */
    public int maxChannels;
    /** Channels found. */
    public int nChannels;
    /** Bandwidth per channel inside a node (GB/s). */
    public float speedIntra;
    /** Bandwidth per channel between nodes (GB/s). */
    public float speedInter;
    /** Worst path type inside a node (path type code). */
    public int typeIntra;
    /** Worst path type to the NICs (path type code). */
    public int typeInter;
    /** 1 if every channel uses the same GPU order. */
    public int sameChannels;
    /** Hops (search bookkeeping). */
    public int nHops;
    /** {@code intra[c * nGpus + i]}: the rank of the i-th GPU of channel c. */
    public final int[] intra = new int[MAXCHANNELS * MAX_NODES];
    /** {@code inter[2c]}, {@code inter[2c+1]}: the NET ids a channel enters and leaves by. */
    public final int[] inter = new int[MAXCHANNELS * 2];

    /**
     * A search request, as init makes them: ring (id 0), tree (1) and CollNet (2).
     *
     * @param id          graph id
     * @param pattern     one of the {@code PATTERN_*} codes
     * @param crossNic    {@code NCCL_CROSS_NIC}
     * @param collNet     1 for the CollNet graph
     * @param minChannels fewest channels wanted
     * @param maxChannels most channels wanted
     * @return an empty graph carrying the request
     */
    public static TopoGraph request(int id, int pattern, int crossNic, int collNet, int minChannels, int maxChannels) {
        TopoGraph g = new TopoGraph();
        g.id = id;
        g.pattern = pattern;
        g.crossNic = crossNic;
        g.collNet = collNet;
        g.minChannels = minChannels;
        g.maxChannels = maxChannels;
        return g;
    }

    /**
     * Copies every field of {@code src} into this graph (C struct assignment).
     *
     * @param src the graph to copy
     */
    public void copyFrom(TopoGraph src) {
        id = src.id;
        pattern = src.pattern;
        crossNic = src.crossNic;
        collNet = src.collNet;
        minChannels = src.minChannels;
        maxChannels = src.maxChannels;
        nChannels = src.nChannels;
        speedIntra = src.speedIntra;
        speedInter = src.speedInter;
        typeIntra = src.typeIntra;
        typeInter = src.typeInter;
        sameChannels = src.sameChannels;
        nHops = src.nHops;
        System.arraycopy(src.intra, 0, intra, 0, intra.length);
        System.arraycopy(src.inter, 0, inter, 0, inter.length);
    }
}
