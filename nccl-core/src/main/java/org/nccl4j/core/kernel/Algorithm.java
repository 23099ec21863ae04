package org.nccl4j.core.kernel;

/** NCCL's algorithms that the host engine runs, in NCCL's order ({@code NCCL_ALGO_TREE}, {@code NCCL_ALGO_RING}). */
public enum Algorithm {
    /** Reduce up a tree, then broadcast down it (AllReduce only, as in NCCL). */
    TREE("Tree"),
    /** Pipelines around the ring. */
    RING("Ring");

    private final String ncclName;

    Algorithm(String ncclName) {
        this.ncclName = ncclName;
    }

    /** @return the name NCCL uses ({@code NCCL_ALGO} values, logs) */
    public String ncclName() {
        return ncclName;
    }
}
