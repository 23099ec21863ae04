package org.nccl4j.core.reduce;

import java.lang.foreign.ValueLayout;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/** float64; AVG pre-multiplies by the correctly rounded {@code 1.0/nranks}. */
final class Float64Scalar extends BaseReducer {
    private static final ThreadLocal<Object[]> CHUNKS = chunksOf(double[]::new, Double.BYTES);

    /** NCCL's {@code __drcp_rn(double(n))}. */
    private final double rcp;

    Float64Scalar(RedOp op, int nranks) {
        super(DataType.FLOAT64, op, ValueLayout.JAVA_DOUBLE_UNALIGNED);
        this.rcp = op == RedOp.AVG ? 1.0 / nranks : 1.0;
    }

    @Override
    Object[] chunks() {
        return CHUNKS.get();
    }

    @Override
    void combine(Object xs, Object ys, int k) {
        double[] x = (double[]) xs;
        double[] y = (double[]) ys;
        switch (op) {
            case SUM, AVG -> sum(x, y, k);
            case PROD -> prod(x, y, k);
            case MAX -> max(x, y, k);
            case MIN -> min(x, y, k);
        }
    }

    private static void sum(double[] x, double[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] += y[i];
        }
    }

    private static void prod(double[] x, double[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] *= y[i];
        }
    }

    private static void max(double[] x, double[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = fmax(x[i], y[i]);
        }
    }

    private static void min(double[] x, double[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = fmin(x[i], y[i]);
        }
    }

    /** CUDA's {@code fmax}: see {@link Float32Scalar#fmax}. */
    static double fmax(double x, double y) {
        double m = Math.max(x, y); // NaN if either is: the rare case decides after
        return m == m ? m : x != x ? y : x;
    }

    /** CUDA's {@code fmin}: see {@link Float32Scalar#fmin}. */
    static double fmin(double x, double y) {
        double m = Math.min(x, y);
        return m == m ? m : x != x ? y : x;
    }

    @Override
    public boolean hasPreOp() {
        return op == RedOp.AVG;
    }

    @Override
    void pre(Object xs, int k) {
        double[] x = (double[]) xs;
        for (int i = 0; i < k; i++) {
            x[i] *= rcp;
        }
    }
}
