package org.nccl4j.core.reduce;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/** int32 and uint32 in plain loops. SUM and PROD wrap; the two types differ in MAX, MIN and AVG only. */
final class Int32Scalar extends BaseReducer {
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED;

    private final boolean unsigned;
    private final int nranks;

    Int32Scalar(DataType type, RedOp op, int nranks, boolean unsigned) {
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
            case SUM, AVG -> sum(a, aOff, b, bOff, d, dOff, n);
            case PROD -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 2;
                    d.set(I, dOff + o, a.get(I, aOff + o) * b.get(I, bOff + o));
                }
            }
            case MAX -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 2;
                    int x = a.get(I, aOff + o);
                    int y = b.get(I, bOff + o);
                    boolean less = unsigned ? Integer.compareUnsigned(x, y) < 0 : x < y;
                    d.set(I, dOff + o, less ? y : x);
                }
            }
            case MIN -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 2;
                    int x = a.get(I, aOff + o);
                    int y = b.get(I, bOff + o);
                    boolean less = unsigned ? Integer.compareUnsigned(x, y) < 0 : x < y;
                    d.set(I, dOff + o, less ? x : y);
                }
            }
        }
    }

    // SUM has a method of its own: one tight loop, the one C2 vectorizes best.
    static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n) {
        for (long i = 0; i < n; i++) {
            long o = i << 2;
            d.set(I, dOff + o, a.get(I, aOff + o) + b.get(I, bOff + o));
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

    /** Integer AVG's post-op, C's {@code T(x/n)}: truncating division, unsigned for uint32. */
    static void divide(MemorySegment buf, long off, long n, int nranks, boolean unsigned) {
        for (long i = 0; i < n; i++) {
            long o = off + (i << 2);
            int x = buf.get(I, o);
            buf.set(I, o, unsigned ? Integer.divideUnsigned(x, nranks) : x / nranks);
        }
    }
}
