package org.nccl4j.core.reduce;

import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/**
 * The Vector API kernels, for the types where they beat a plain loop (see nccl-bench's
 * ReduceBench). Only touched when {@link Reducers#VECTOR_API} is true.
 */
final class SimdReducers {
    private SimdReducers() {
    }

    /** @return a vector kernel, or null where plain loops are as good (float16, bfloat16) */
    static Reducer of(DataType type, RedOp op, int nranks) {
        return switch (type) {
            case INT8 -> new Int8Simd(type, op, nranks, false);
            case UINT8 -> new Int8Simd(type, op, nranks, true);
            case INT32 -> new Int32Simd(type, op, nranks, false);
            case UINT32 -> new Int32Simd(type, op, nranks, true);
            case INT64 -> new Int64Simd(type, op, nranks, false);
            case UINT64 -> new Int64Simd(type, op, nranks, true);
            case FLOAT32 -> new Float32Simd(op, nranks);
            case FLOAT64 -> new Float64Simd(op, nranks);
            case FLOAT16, BFLOAT16 -> null;
        };
    }
}
