package org.nccl4j.core.reduce;

import java.lang.foreign.ValueLayout;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/**
 * float16 and bfloat16: widen to float, operate, round back to nearest-even. AVG pre-multiplies
 * by {@code 1/nranks} rounded to the format, as NCCL's {@code FuncAvg<half>} does on sm_53 and
 * later ({@code __hmul} by {@code __float2half(__frcp_rn(n))}) and {@code FuncAvg<__nv_bfloat16>}
 * on sm_80 and later.
 */
final class HalfScalar extends BaseReducer {
    private static final ValueLayout LAYOUT = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ThreadLocal<Object[]> CHUNKS = chunksOf(short[]::new, LAYOUT);

    private final boolean bf16;
    /** The reciprocal rounded to the format, widened; x * scale is exact in float, so it rounds once. */
    private final float scale;

    HalfScalar(DataType type, RedOp op, int nranks) {
        super(type, op, LAYOUT, CHUNKS);
        this.bf16 = type == DataType.BFLOAT16;
        this.scale = op == RedOp.AVG ? widen(narrow(1f / nranks)) : 1f;
    }

    private float widen(short h) {
        return bf16 ? HalfFloats.bf16ToFloat(h) : HalfFloats.halfToFloat(h);
    }

    private short narrow(float f) {
        return bf16 ? HalfFloats.floatToBf16(f) : HalfFloats.floatToHalf(f);
    }

    @Override
    Object combine(Object xs, Object ys, Object spare, int k) {
        short[] x = (short[]) xs;
        short[] y = (short[]) ys;
        switch (op) {
            case SUM, AVG -> sum(x, y, k);
            case PROD -> prod(x, y, k);
            case MAX -> max(x, y, k);
            case MIN -> min(x, y, k);
        }
        return x;
    }

    private void sum(short[] x, short[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = narrow(widen(x[i]) + widen(y[i]));
        }
    }

    private void prod(short[] x, short[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = narrow(widen(x[i]) * widen(y[i]));
        }
    }

    private void max(short[] x, short[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = narrow(Float32Scalar.fmax(widen(x[i]), widen(y[i])));
        }
    }

    private void min(short[] x, short[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = narrow(Float32Scalar.fmin(widen(x[i]), widen(y[i])));
        }
    }

    @Override
    public boolean hasPreOp() {
        return op == RedOp.AVG;
    }

    @Override
    void pre(Object xs, int k) {
        short[] x = (short[]) xs;
        for (int i = 0; i < k; i++) {
            x[i] = narrow(widen(x[i]) * scale);
        }
    }
}
