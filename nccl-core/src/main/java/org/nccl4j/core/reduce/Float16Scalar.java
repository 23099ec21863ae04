package org.nccl4j.core.reduce;

import static org.nccl4j.core.reduce.HalfFloats.floatToHalf;
import static org.nccl4j.core.reduce.HalfFloats.halfToFloat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/**
 * float16 in plain loops: widen to float, operate, round back to nearest-even. AVG pre-multiplies
 * by {@code 1/nranks} rounded to half, as NCCL's {@code FuncAvg<half>} does on sm_53 and later
 * ({@code __hmul} by {@code __float2half(__frcp_rn(n))}).
 */
final class Float16Scalar extends BaseReducer {
    private static final ValueLayout.OfShort H = ValueLayout.JAVA_SHORT_UNALIGNED;

    /** The half-rounded reciprocal, widened; x * scale is exact in float, so it rounds once. */
    private final float scale;

    Float16Scalar(RedOp op, int nranks) {
        super(DataType.FLOAT16, op);
        this.scale = op == RedOp.AVG ? halfToFloat(floatToHalf(1f / nranks)) : 1f;
    }

    @Override
    public void reduce(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n) {
        checkCount(n);
        switch (op) {
            case SUM, AVG -> sum(a, aOff, b, bOff, d, dOff, n);
            case PROD -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 1;
                    float x = halfToFloat(a.get(H, aOff + o));
                    float y = halfToFloat(b.get(H, bOff + o));
                    d.set(H, dOff + o, floatToHalf(x * y));
                }
            }
            case MAX -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 1;
                    float x = halfToFloat(a.get(H, aOff + o));
                    float y = halfToFloat(b.get(H, bOff + o));
                    d.set(H, dOff + o, floatToHalf(Float32Scalar.fmax(x, y)));
                }
            }
            case MIN -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 1;
                    float x = halfToFloat(a.get(H, aOff + o));
                    float y = halfToFloat(b.get(H, bOff + o));
                    d.set(H, dOff + o, floatToHalf(Float32Scalar.fmin(x, y)));
                }
            }
        }
    }

    private static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n) {
        for (long i = 0; i < n; i++) {
            long o = i << 1;
            float x = halfToFloat(a.get(H, aOff + o));
            float y = halfToFloat(b.get(H, bOff + o));
            d.set(H, dOff + o, floatToHalf(x + y));
        }
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
        for (long i = 0; i < n; i++) {
            long o = i << 1;
            dst.set(H, dOff + o, floatToHalf(halfToFloat(src.get(H, srcOff + o)) * scale));
        }
    }
}
