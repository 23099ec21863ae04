package org.nccl4j.core.topo.tuning;

import java.util.List;

/**
 * Collective algorithms: NCCL's ({@code NCCL_ALGO_*}), which the tuning tables rate, and the
 * host engine's own {@link #RECURSIVE_DOUBLING}, which they do not.
 */
public enum Algorithm {
    /** {@code NCCL_ALGO_TREE}. */
    TREE("Tree"),
    /** {@code NCCL_ALGO_RING}. */
    RING("Ring"),
    /** {@code NCCL_ALGO_COLLNET}. */
    COLLNET("CollNet"),
    /**
     * Not NCCL's: the host engine's small AllReduce, partners exchanging their whole buffers in
     * log2(ranks) rounds (MPI's recursive doubling), rated by the host engine's chooser from the
     * tuning model's ring figures ({@code NCCL_ALGO} names it {@code RecDbl}).
     */
    RECURSIVE_DOUBLING("RecDbl");

    /** NCCL's algorithms in code order: those the tuning tables have. */
    public static final List<Algorithm> NCCL = List.of(TREE, RING, COLLNET);

    private final String ncclName;

    Algorithm(String ncclName) {
        this.ncclName = ncclName;
    }

    /** @return NCCL's code (0..2; 3 for {@link #RECURSIVE_DOUBLING}, which no table has) */
    public int code() {
        return ordinal();
    }

    /** @return NCCL's name ({@code ncclAlgoStr}), as {@code NCCL_ALGO} spells it */
    public String ncclName() {
        return ncclName;
    }
}
