package org.nccl4j.core.reduce;

import java.lang.foreign.ValueLayout;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/** int8 and uint8. SUM and PROD wrap; the two types differ in MAX, MIN and AVG only. */
final class Int8Scalar extends BaseReducer {
    private static final ValueLayout LAYOUT = ValueLayout.JAVA_BYTE;
    private static final ThreadLocal<Object[]> CHUNKS = chunksOf(byte[]::new, LAYOUT);

    private final boolean unsigned;
    private final int nranks;

    Int8Scalar(DataType type, RedOp op, int nranks, boolean unsigned) {
        super(type, op, LAYOUT, CHUNKS);
        this.unsigned = unsigned;
        this.nranks = nranks;
    }

    @Override
    Object combine(Object xs, Object ys, Object spare, int k) {
        byte[] x = (byte[]) xs;
        byte[] y = (byte[]) ys;
        switch (op) {
            case SUM, AVG -> sum(x, y, k);
            case PROD -> prod(x, y, k);
            case MAX -> max(x, y, k);
            case MIN -> min(x, y, k);
        }
        return x;
    }

    private static void sum(byte[] x, byte[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = (byte) (x[i] + y[i]);
        }
    }

    private static void prod(byte[] x, byte[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = (byte) (x[i] * y[i]);
        }
    }

    private void max(byte[] x, byte[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = less(x[i], y[i]) ? y[i] : x[i];
        }
    }

    private void min(byte[] x, byte[] y, int k) {
        for (int i = 0; i < k; i++) {
            x[i] = less(x[i], y[i]) ? x[i] : y[i];
        }
    }

    private boolean less(byte x, byte y) {
        return unsigned ? Byte.compareUnsigned(x, y) < 0 : x < y;
    }

    @Override
    public boolean hasPostOp() {
        return op == RedOp.AVG;
    }

    /** Integer AVG's post-op, C's {@code T(x/n)}: truncating division, unsigned for uint8. */
    @Override
    void post(Object xs, int k) {
        byte[] x = (byte[]) xs;
        for (int i = 0; i < k; i++) {
            x[i] = (byte) ((unsigned ? Byte.toUnsignedInt(x[i]) : x[i]) / nranks);
        }
    }
}
