package org.nccl4j.core.reduce;

import static org.nccl4j.core.reduce.HalfFloats.floatToBf16;
import static org.nccl4j.core.reduce.HalfFloats.bf16ToFloat;

import java.lang.foreign.ValueLayout;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/**
 * bfloat16: widen to float, operate, round back to nearest-even. AVG pre-multiplies by
 * {@code 1/nranks} rounded to bfloat16, as NCCL's {@code FuncAvg<__nv_bfloat16>} does on sm_80
 * and later.
 */
final class Bfloat16Scalar extends BaseReducer {
    private static final ThreadLocal<Object[]> CHUNKS = chunksOf(short[]::new, Short.BYTES);

    /** The bf16-rounded reciprocal, widened. */
    private final float scale;

    Bfloat16Scalar(RedOp op, int nranks) {
        super(DataType.BFLOAT16, op, ValueLayout.JAVA_SHORT_UNALIGNED);
        this.scale = op == RedOp.AVG ? bf16ToFloat(floatToBf16(1f / nranks)) : 1f;
    }

    @Override
    Object[] chunks() {
        return CHUNKS.get();
    }

    @Override
    void combine(Object xs, Object ys, int k) {
        short[] x = (short[]) xs;
        short[] y = (short[]) ys;
        switch (op) {
            case SUM, AVG -> sum(x, y, k);
            case PROD -> prod(x, y, k);
            case MAX -> max(x, y, k);
            case MIN -> min(x, y, k);
        }
    }

    private static void sum(short[] x, short[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = floatToBf16(bf16ToFloat(x[i]) + bf16ToFloat(y[i]));
        }
    }

    private static void prod(short[] x, short[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = floatToBf16(bf16ToFloat(x[i]) * bf16ToFloat(y[i]));
        }
    }

    private static void max(short[] x, short[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = floatToBf16(Float32Scalar.fmax(bf16ToFloat(x[i]), bf16ToFloat(y[i])));
        }
    }

    private static void min(short[] x, short[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = floatToBf16(Float32Scalar.fmin(bf16ToFloat(x[i]), bf16ToFloat(y[i])));
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
            x[i] = floatToBf16(bf16ToFloat(x[i]) * scale);
        }
    }
}
