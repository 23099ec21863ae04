package org.nccl4j.core.reduce;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/** float64 in plain loops; AVG pre-multiplies by the correctly rounded {@code 1.0/nranks}. */
final class Float64Scalar extends BaseReducer {
    private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    /** NCCL's {@code __drcp_rn(double(n))}. */
    private final double rcp;

    Float64Scalar(RedOp op, int nranks) {
        super(DataType.FLOAT64, op);
        this.rcp = op == RedOp.AVG ? 1.0 / nranks : 1.0;
    }

    @Override
    public void reduce(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n) {
        checkCount(n);
        apply(op, a, aOff, b, bOff, d, dOff, n);
    }

    static void apply(RedOp op, MemorySegment a, long aOff, MemorySegment b, long bOff,
            MemorySegment d, long dOff, long n) {
        switch (op) {
            case SUM, AVG -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 3;
                    d.set(D, dOff + o, a.get(D, aOff + o) + b.get(D, bOff + o));
                }
            }
            case PROD -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 3;
                    d.set(D, dOff + o, a.get(D, aOff + o) * b.get(D, bOff + o));
                }
            }
            case MAX -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 3;
                    d.set(D, dOff + o, fmax(a.get(D, aOff + o), b.get(D, bOff + o)));
                }
            }
            case MIN -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 3;
                    d.set(D, dOff + o, fmin(a.get(D, aOff + o), b.get(D, bOff + o)));
                }
            }
        }
    }

    /** CUDA's {@code fmax}: see {@link Float32Scalar#fmax}. */
    static double fmax(double x, double y) {
        return x != x ? y : y != y ? x : Math.max(x, y);
    }

    /** CUDA's {@code fmin}: see {@link Float32Scalar#fmin}. */
    static double fmin(double x, double y) {
        return x != x ? y : y != y ? x : Math.min(x, y);
    }

    @Override
    public boolean hasPreOp() {
        return op == RedOp.AVG;
    }

    @Override
    public void preOp(MemorySegment src, long srcOff, MemorySegment dst, long dOff, long n) {
        if (op != RedOp.AVG) {
            super.preOp(src, srcOff, dst, dOff, n);
            return;
        }
        checkCount(n);
        scale(src, srcOff, dst, dOff, n, rcp);
    }

    static void scale(MemorySegment src, long srcOff, MemorySegment dst, long dOff, long n, double k) {
        for (long i = 0; i < n; i++) {
            long o = i << 3;
            dst.set(D, dOff + o, src.get(D, srcOff + o) * k);
        }
    }
}
