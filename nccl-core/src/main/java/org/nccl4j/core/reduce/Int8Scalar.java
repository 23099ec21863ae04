package org.nccl4j.core.reduce;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/** int8 and uint8 in plain loops. SUM and PROD wrap; the two types differ in MAX, MIN and AVG only. */
final class Int8Scalar extends BaseReducer {
    private static final ValueLayout.OfByte B = ValueLayout.JAVA_BYTE;

    private final boolean unsigned;
    private final int nranks;

    Int8Scalar(DataType type, RedOp op, int nranks, boolean unsigned) {
        super(type, op);
        this.unsigned = unsigned;
        this.nranks = nranks;
    }

    @Override
    public void reduce(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n) {
        checkCount(n);
        apply(op, unsigned, a, aOff, b, bOff, d, dOff, n);
    }

    static void apply(RedOp op, boolean unsigned, MemorySegment a, long aOff, MemorySegment b, long bOff,
            MemorySegment d, long dOff, long n) {
        switch (op) {
            case SUM, AVG -> {
                for (long i = 0; i < n; i++) {
                    d.set(B, dOff + i, (byte) (a.get(B, aOff + i) + b.get(B, bOff + i)));
                }
            }
            case PROD -> {
                for (long i = 0; i < n; i++) {
                    d.set(B, dOff + i, (byte) (a.get(B, aOff + i) * b.get(B, bOff + i)));
                }
            }
            case MAX -> {
                for (long i = 0; i < n; i++) {
                    byte x = a.get(B, aOff + i);
                    byte y = b.get(B, bOff + i);
                    boolean less = unsigned ? Byte.compareUnsigned(x, y) < 0 : x < y;
                    d.set(B, dOff + i, less ? y : x);
                }
            }
            case MIN -> {
                for (long i = 0; i < n; i++) {
                    byte x = a.get(B, aOff + i);
                    byte y = b.get(B, bOff + i);
                    boolean less = unsigned ? Byte.compareUnsigned(x, y) < 0 : x < y;
                    d.set(B, dOff + i, less ? x : y);
                }
            }
        }
    }

    @Override
    public boolean hasPostOp() {
        return op == RedOp.AVG;
    }

    @Override
    public void postOp(MemorySegment buf, long off, long n) {
        checkCount(n);
        if (op == RedOp.AVG) {
            divide(buf, off, n, nranks, unsigned);
        }
    }

    /** Integer AVG's post-op, C's {@code T(x/n)}: truncating division, unsigned for uint8. */
    static void divide(MemorySegment buf, long off, long n, int nranks, boolean unsigned) {
        for (long i = 0; i < n; i++) {
            byte x = buf.get(B, off + i);
            buf.set(B, off + i, (byte) ((unsigned ? Byte.toUnsignedInt(x) : x) / nranks));
        }
    }
}
