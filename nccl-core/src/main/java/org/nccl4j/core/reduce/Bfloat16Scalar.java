package org.nccl4j.core.reduce;

import static org.nccl4j.core.reduce.HalfFloats.bf16ToFloat;
import static org.nccl4j.core.reduce.HalfFloats.floatToBf16;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/**
 * bfloat16 in plain loops: widen to float, operate, round back to nearest-even. AVG pre-multiplies
 * by {@code 1/nranks} rounded to bfloat16, as NCCL's {@code FuncAvg<__nv_bfloat16>} does on sm_80
 * and later.
 */
final class Bfloat16Scalar extends BaseReducer {
    private static final ValueLayout.OfShort H = ValueLayout.JAVA_SHORT_UNALIGNED;

    /** The bf16-rounded reciprocal, widened. */
    private final float scale;

    Bfloat16Scalar(RedOp op, int nranks) {
        super(DataType.BFLOAT16, op);
        this.scale = op == RedOp.AVG ? bf16ToFloat(floatToBf16(1f / nranks)) : 1f;
    }

    @Override
    public void reduce(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n) {
        checkCount(n);
        switch (op) {
            case SUM, AVG -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 1;
                    float x = bf16ToFloat(a.get(H, aOff + o));
                    float y = bf16ToFloat(b.get(H, bOff + o));
                    d.set(H, dOff + o, floatToBf16(x + y));
                }
            }
            case PROD -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 1;
                    float x = bf16ToFloat(a.get(H, aOff + o));
                    float y = bf16ToFloat(b.get(H, bOff + o));
                    d.set(H, dOff + o, floatToBf16(x * y));
                }
            }
            case MAX -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 1;
                    float x = bf16ToFloat(a.get(H, aOff + o));
                    float y = bf16ToFloat(b.get(H, bOff + o));
                    d.set(H, dOff + o, floatToBf16(Float32Scalar.fmax(x, y)));
                }
            }
            case MIN -> {
                for (long i = 0; i < n; i++) {
                    long o = i << 1;
                    float x = bf16ToFloat(a.get(H, aOff + o));
                    float y = bf16ToFloat(b.get(H, bOff + o));
                    d.set(H, dOff + o, floatToBf16(Float32Scalar.fmin(x, y)));
                }
            }
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
            dst.set(H, dOff + o, floatToBf16(bf16ToFloat(src.get(H, srcOff + o)) * scale));
        }
    }
}
