package org.nccl4j.core.reduce;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/** int64 and uint64 in plain loops. SUM and PROD wrap; the two types differ in MAX, MIN and AVG only. */
final class Int64Scalar extends BaseReducer {
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;

    private final boolean unsigned;
    private final int nranks;

    Int64Scalar(DataType type, RedOp op, int nranks, boolean unsigned) {
        super(type, op);
        this.unsigned = unsigned;
        this.nranks = nranks;
    }

    @Override
    public void reduce(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n) {
        checkCount(n);
        apply(op, unsigned, a, aOff, b, bOff, d, dOff, n);
    }

    static void apply(RedOp op, boolean unsigned, MemorySegment a, long aOff, MemorySegment b, long bOff,
            MemorySegment d, long dOff, long n) {
        switch (op) {
            case SUM, AVG -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 3;
                    d.set(L, dOff + o, a.get(L, aOff + o) + b.get(L, bOff + o));
                }
            }
            case PROD -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 3;
                    d.set(L, dOff + o, a.get(L, aOff + o) * b.get(L, bOff + o));
                }
            }
            case MAX -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 3;
                    long x = a.get(L, aOff + o);
                    long y = b.get(L, bOff + o);
                    boolean less = unsigned ? Long.compareUnsigned(x, y) < 0 : x < y;
                    d.set(L, dOff + o, less ? y : x);
                }
            }
            case MIN -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 3;
                    long x = a.get(L, aOff + o);
                    long y = b.get(L, bOff + o);
                    boolean less = unsigned ? Long.compareUnsigned(x, y) < 0 : x < y;
                    d.set(L, dOff + o, less ? x : y);
                }
            }
        }
    }

    @Override
    public boolean hasPostOp() {
        return op == RedOp.AVG;
    }

    @Override
    public void postOp(MemorySegment buf, long off, long n) {
        checkCount(n);
        if (op == RedOp.AVG) {
            divide(buf, off, n, nranks, unsigned);
        }
    }

    /** Integer AVG's post-op, C's {@code T(x/n)}: truncating division, unsigned for uint64. */
    static void divide(MemorySegment buf, long off, long n, int nranks, boolean unsigned) {
        for (long i = 0; i < n; i++) {
            long o = off + (i << 3);
            long x = buf.get(L, o);
            buf.set(L, o, unsigned ? Long.divideUnsigned(x, nranks) : x / nranks);
        }
    }
}
