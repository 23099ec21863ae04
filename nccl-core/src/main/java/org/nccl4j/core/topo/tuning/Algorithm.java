package org.nccl4j.core.topo.tuning;

/** Collective algorithms ({@code NCCL_ALGO_*}). */
public enum Algorithm {
    /** {@code NCCL_ALGO_TREE}. */
    TREE("Tree"),
    /** {@code NCCL_ALGO_RING}. */
    RING("Ring"),
    /** {@code NCCL_ALGO_COLLNET}. */
    COLLNET("CollNet");

    private final String ncclName;

    Algorithm(String ncclName) {
        this.ncclName = ncclName;
    }

    /** @return NCCL's code (0..2) */
    public int code() {
        return ordinal();
    }

    /** @return NCCL's name ({@code ncclAlgoStr}), as {@code NCCL_ALGO} spells it */
    public String ncclName() {
        return ncclName;
    }
}
