package org.nccl4j.core.reduce;

import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/**
 * The plain-loop kernels alone, without the Vector API: the baseline that benchmarks compare
 * against and the fallback when {@code jdk.incubator.vector} is not in the boot layer. They
 * compute the same bits as {@link Reducer#of}.
 */
public final class ScalarReducers {
    private ScalarReducers() {
    }

    /**
     * @param type the element type
     * @param op the reduction
     * @param nranks number of ranks; used by {@link RedOp#AVG} only, where it must be at least 1
     * @return a plain-loop kernel
     * @throws org.nccl4j.NcclException with {@link org.nccl4j.Result#INVALID_ARGUMENT} as
     *     {@link Reducer#of} does
     */
    public static Reducer of(DataType type, RedOp op, int nranks) {
        return Reducers.select(type, op, nranks, false);
    }
}
