package org.nccl4j.core.reduce;

import static org.nccl4j.core.reduce.HalfFloats.floatToHalf;
import static org.nccl4j.core.reduce.HalfFloats.halfToFloat;

import java.lang.foreign.ValueLayout;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/**
 * float16: widen to float, operate, round back to nearest-even. AVG pre-multiplies by
 * {@code 1/nranks} rounded to half, as NCCL's {@code FuncAvg<half>} does on sm_53 and later
 * ({@code __hmul} by {@code __float2half(__frcp_rn(n))}).
 */
final class Float16Scalar extends BaseReducer {
    private static final ThreadLocal<Object[]> CHUNKS = chunksOf(short[]::new, Short.BYTES);

    /** The half-rounded reciprocal, widened; x * scale is exact in float, so it rounds once. */
    private final float scale;

    Float16Scalar(RedOp op, int nranks) {
        super(DataType.FLOAT16, op, ValueLayout.JAVA_SHORT_UNALIGNED);
        this.scale = op == RedOp.AVG ? halfToFloat(floatToHalf(1f / nranks)) : 1f;
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
            x[i] = floatToHalf(halfToFloat(x[i]) + halfToFloat(y[i]));
        }
    }

    private static void prod(short[] x, short[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = floatToHalf(halfToFloat(x[i]) * halfToFloat(y[i]));
        }
    }

    private static void max(short[] x, short[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = floatToHalf(Float32Scalar.fmax(halfToFloat(x[i]), halfToFloat(y[i])));
        }
    }

    private static void min(short[] x, short[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = floatToHalf(Float32Scalar.fmin(halfToFloat(x[i]), halfToFloat(y[i])));
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
            x[i] = floatToHalf(halfToFloat(x[i]) * scale);
        }
    }
}
