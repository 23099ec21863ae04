package org.nccl4j.core.topo.tuning;

/**
 * What {@code NCCL_ALGO} says of the host engine's own algorithms ({@link Algorithm#HOST}:
 * {@code RecDbl}, {@code HalvDbl}): each allowed where listed (or not excluded by {@code ^});
 * forced, for every AllReduce, when one is listed without Ring and Tree. Unset, recursive
 * doubling only: halving-doubling did not measure ahead where the model would take it (16 cores,
 * 8 rank JVMs: ahead of the rings at 4 and 64 KiB, behind at 16 KiB and from 256 KiB, no faster
 * than recursive doubling at 8 KiB), so the chooser rates it only where {@code NCCL_ALGO} asks.
 */
public final class HostAlgoEnable {
    private static final String[] NAMES = Algorithm.NCCL.stream().map(Algorithm::ncclName).toArray(String[]::new);
    private static final String[] HOST_NAMES = Algorithm.HOST.stream().map(Algorithm::ncclName).toArray(String[]::new);

    private HostAlgoEnable() {
    }

    /**
     * @param algo {@code NCCL_ALGO}, or {@code null}
     * @param a    one of {@link Algorithm#HOST}
     * @return whether the host engine may choose it
     */
    public static boolean allowed(String algo, Algorithm a) {
        if (algo == null) {
            return a == Algorithm.RECURSIVE_DOUBLING;
        }
        return EnableList.parse(algo, HOST_NAMES)[Algorithm.HOST.indexOf(a)] == 1;
    }

    /**
     * @param algo {@code NCCL_ALGO}, or {@code null}
     * @return whether every AllReduce of the host engine runs by one of its own algorithms
     */
    public static boolean forced(String algo) {
        if (algo == null || Algorithm.HOST.stream().noneMatch(a -> allowed(algo, a))) {
            return false;
        }
        int[] nccl = EnableList.parse(algo, NAMES);
        return nccl[Algorithm.RING.code()] == 0 && nccl[Algorithm.TREE.code()] == 0;
    }
}
