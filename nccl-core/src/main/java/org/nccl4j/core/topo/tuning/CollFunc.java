package org.nccl4j.core.topo.tuning;

/** The collectives the tuning model covers ({@code ncclFunc_t}, first {@code NCCL_NUM_FUNCTIONS}). */
public enum CollFunc {
    /** {@code ncclFuncBroadcast}. */
    BROADCAST("Broadcast"),
    /** {@code ncclFuncReduce}. */
    REDUCE("Reduce"),
    /** {@code ncclFuncAllGather}. */
    ALL_GATHER("AllGather"),
    /** {@code ncclFuncReduceScatter}. */
    REDUCE_SCATTER("ReduceScatter"),
    /** {@code ncclFuncAllReduce}. */
    ALL_REDUCE("AllReduce");

    private final String ncclName;

    CollFunc(String ncclName) {
        this.ncclName = ncclName;
    }

    /** @return NCCL's code (0..4) */
    public int code() {
        return ordinal();
    }

    /** @return NCCL's name ({@code ncclFuncStr}) */
    public String ncclName() {
        return ncclName;
    }
}
