package org.nccl4j.core.reduce;

import org.nccl4j.DataType;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;

/** Argument checks and the kernel of each type. */
final class Reducers {
    private Reducers() {
    }

    static Reducer select(DataType type, RedOp op, int nranks) {
        if (type == null || op == null) {
            throw NcclException.of(Result.INVALID_ARGUMENT,
                    "reduction needs a data type and an operation, got " + type + " and " + op, null);
        }
        if (op == RedOp.AVG && nranks < 1) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "AVG over " + nranks + " ranks",
                    "nranks is the communicator's size, at least 1");
        }
        return switch (type) {
            case INT8 -> new Int8Scalar(type, op, nranks, false);
            case UINT8 -> new Int8Scalar(type, op, nranks, true);
            case INT32 -> new Int32Scalar(type, op, nranks, false);
            case UINT32 -> new Int32Scalar(type, op, nranks, true);
            case INT64 -> new Int64Scalar(type, op, nranks, false);
            case UINT64 -> new Int64Scalar(type, op, nranks, true);
            case FLOAT16, BFLOAT16 -> new HalfScalar(type, op, nranks);
            case FLOAT32 -> new Float32Scalar(op, nranks);
            case FLOAT64 -> new Float64Scalar(op, nranks);
        };
    }
}
