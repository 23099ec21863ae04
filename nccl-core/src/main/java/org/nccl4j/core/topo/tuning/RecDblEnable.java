package org.nccl4j.core.topo.tuning;

/**
 * What {@code NCCL_ALGO} says of {@link Algorithm#RECURSIVE_DOUBLING} (named {@code RecDbl}):
 * allowed where unset or listed (or not excluded by {@code ^}); forced, for every AllReduce, when
 * it is listed without Ring and Tree.
 */
public final class RecDblEnable {
    private static final String[] NAMES = Algorithm.NCCL.stream().map(Algorithm::ncclName).toArray(String[]::new);

    private RecDblEnable() {
    }

    /**
     * @param algo {@code NCCL_ALGO}, or {@code null}
     * @return whether the host engine may choose recursive doubling
     */
    public static boolean allowed(String algo) {
        return algo == null || EnableList.parse(algo, new String[] {Algorithm.RECURSIVE_DOUBLING.ncclName()})[0] == 1;
    }

    /**
     * @param algo {@code NCCL_ALGO}, or {@code null}
     * @return whether every AllReduce of the host engine runs by recursive doubling
     */
    public static boolean forced(String algo) {
        if (algo == null || !allowed(algo)) {
            return false;
        }
        int[] nccl = EnableList.parse(algo, NAMES);
        return nccl[Algorithm.RING.code()] == 0 && nccl[Algorithm.TREE.code()] == 0;
    }
}
