package org.nccl4j.core.topo.tuning;

import java.util.List;

/**
 * Collective algorithms: NCCL's ({@code NCCL_ALGO_*}), which the tuning tables rate, and the
 * host engine's own {@link #RECURSIVE_DOUBLING} and {@link #HALVING_DOUBLING}, which they do not.
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
    RECURSIVE_DOUBLING("RecDbl"),
    /**
     * Not NCCL's: the host engine's mid-size AllReduce on the same partners, a reduce-scatter by
     * recursive halving and an all-gather by recursive doubling (MPI's Rabenseifner), rated as
     * {@link #RECURSIVE_DOUBLING} is ({@code NCCL_ALGO} names it {@code HalvDbl}).
     */
    HALVING_DOUBLING("HalvDbl");

    /** NCCL's algorithms in code order: those the tuning tables have. */
    public static final List<Algorithm> NCCL = List.of(TREE, RING, COLLNET);

    private final String ncclName;

    Algorithm(String ncclName) {
        this.ncclName = ncclName;
    }

    /** The host engine's own, on each rank's log2(ranks) partners: no tuning table rates them. */
    public static final List<Algorithm> HOST = List.of(RECURSIVE_DOUBLING, HALVING_DOUBLING);

    /** @return whether this is one of the host engine's own algorithms ({@link #HOST}) */
    public boolean recursive() {
        return this == RECURSIVE_DOUBLING || this == HALVING_DOUBLING;
    }

    /** @return NCCL's code (0..2; 3 and 4 for the host engine's own, which no table has) */
    public int code() {
        return ordinal();
    }

    /** @return NCCL's name ({@code ncclAlgoStr}), as {@code NCCL_ALGO} spells it */
    public String ncclName() {
        return ncclName;
    }
}
