package org.nccl4j.core.reduce;

import java.lang.foreign.MemorySegment;
import org.nccl4j.DataType;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;

/** What every kernel shares: its type and op, identity pre/post ops, the count check. */
abstract class BaseReducer implements Reducer {
    final DataType type;
    final RedOp op;

    BaseReducer(DataType type, RedOp op) {
        this.type = type;
        this.op = op;
    }

    static void checkCount(long n) {
        if (n < 0) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "negative element count " + n, null);
        }
    }

    @Override
    public boolean hasPreOp() {
        return false;
    }

    @Override
    public void preOp(MemorySegment src, long srcOff, MemorySegment dst, long dOff, long n) {
        checkCount(n);
        MemorySegment.copy(src, srcOff, dst, dOff, n * type.size());
    }

    @Override
    public boolean hasPostOp() {
        return false;
    }

    @Override
    public void postOp(MemorySegment buf, long off, long n) {
        checkCount(n);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + type + " " + op + "]";
    }
}
