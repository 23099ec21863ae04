package org.nccl4j.core.reduce;

import java.lang.foreign.ValueLayout;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/** int32 and uint32. SUM and PROD wrap; the two types differ in MAX, MIN and AVG only. */
final class Int32Scalar extends BaseReducer {
    private static final ValueLayout LAYOUT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ThreadLocal<Object[]> CHUNKS = chunksOf(int[]::new, LAYOUT);

    private final boolean unsigned;
    private final int nranks;

    Int32Scalar(DataType type, RedOp op, int nranks, boolean unsigned) {
        super(type, op, LAYOUT, CHUNKS);
        this.unsigned = unsigned;
        this.nranks = nranks;
    }

    @Override
    Object combine(Object xs, Object ys, Object spare, int k) {
        int[] x = (int[]) xs;
        int[] y = (int[]) ys;
        switch (op) {
            case SUM, AVG -> sum(x, y, k);
            case PROD -> prod(x, y, k);
            case MAX -> max(x, y, k);
            case MIN -> min(x, y, k);
        }
        return x;
    }

    private static void sum(int[] x, int[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] += y[i];
        }
    }

    private static void prod(int[] x, int[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] *= y[i];
        }
    }

    private void max(int[] x, int[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = less(x[i], y[i]) ? y[i] : x[i];
        }
    }

    private void min(int[] x, int[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = less(x[i], y[i]) ? x[i] : y[i];
        }
    }

    private boolean less(int x, int y) {
        return unsigned ? Integer.compareUnsigned(x, y) < 0 : x < y;
    }

    @Override
    public boolean hasPostOp() {
        return op == RedOp.AVG;
    }

    /** Integer AVG's post-op, C's {@code T(x/n)}: truncating division, unsigned for uint32. */
    @Override
    void post(Object xs, int k) {
        int[] x = (int[]) xs;
        for (int i = 0; i < k; i++) {
            x[i] = unsigned ? Integer.divideUnsigned(x[i], nranks) : x[i] / nranks;
        }
    }
}
