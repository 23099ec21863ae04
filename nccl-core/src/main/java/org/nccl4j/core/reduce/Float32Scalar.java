package org.nccl4j.core.reduce;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/** float32 in plain loops; AVG pre-multiplies by the correctly rounded {@code 1f/nranks}. */
final class Float32Scalar extends BaseReducer {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

    /** NCCL's {@code __frcp_rn(float(n))}: the reciprocal rounded to nearest, which {@code 1f/n} is. */
    private final float rcp;

    Float32Scalar(RedOp op, int nranks) {
        super(DataType.FLOAT32, op);
        this.rcp = op == RedOp.AVG ? 1f / nranks : 1f;
    }

    @Override
    public void reduce(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n) {
        checkCount(n);
        apply(op, a, aOff, b, bOff, d, dOff, n);
    }

    static void apply(RedOp op, MemorySegment a, long aOff, MemorySegment b, long bOff,
            MemorySegment d, long dOff, long n) {
        switch (op) {
            case SUM, AVG -> sum(a, aOff, b, bOff, d, dOff, n);
            case PROD -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 2;
                    d.set(F, dOff + o, a.get(F, aOff + o) * b.get(F, bOff + o));
                }
            }
            case MAX -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 2;
                    d.set(F, dOff + o, fmax(a.get(F, aOff + o), b.get(F, bOff + o)));
                }
            }
            case MIN -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 2;
                    d.set(F, dOff + o, fmin(a.get(F, aOff + o), b.get(F, bOff + o)));
                }
            }
        }
    }

    // SUM has a method of its own: one tight loop, the one C2 vectorizes best.
    static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n) {
        for (long i = 0; i < n; i++) {
            long o = i << 2;
            d.set(F, dOff + o, a.get(F, aOff + o) + b.get(F, bOff + o));
        }
    }

    /**
     * CUDA's {@code fmaxf}, which compiles to PTX {@code max.f32} (IEEE 754-2019 maximumNumber): a
     * NaN operand loses to a number, and +0.0 beats -0.0, which {@link Math#max} already does.
     */
    static float fmax(float x, float y) {
        return x != x ? y : y != y ? x : Math.max(x, y);
    }

    /** CUDA's {@code fminf}: the mirror of {@link #fmax}. */
    static float fmin(float x, float y) {
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

    static void scale(MemorySegment src, long srcOff, MemorySegment dst, long dOff, long n, float k) {
        for (long i = 0; i < n; i++) {
            long o = i << 2;
            dst.set(F, dOff + o, src.get(F, srcOff + o) * k);
        }
    }
}
