package org.nccl4j.core.matrix;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/**
 * Test data and expected results for the collective matrix: small integer values so every
 * reduction is exact in every type (float16 and bfloat16 included), and a reference computed in
 * 64-bit integers, then wrapped to the type as C does.
 */
public final class Values {
    private Values() {
    }

    /**
     * @param op   the reduction the data is for (PROD gets factors in {1, 2, -1} to stay small)
     * @param type element type
     * @param rank the rank
     * @param i    element index
     * @return the input value of that rank and element
     */
    public static long input(RedOp op, DataType type, int rank, long i) {
        boolean unsigned = type == DataType.UINT8 || type == DataType.UINT32 || type == DataType.UINT64;
        long h = (rank * 7L + i * 13L + (i >>> 7)) % 11;
        if (op == RedOp.PROD) {
            long f = h % 3; // 0,1,2 -> 1, 2, -1 (or 1 for unsigned)
            return f == 0 ? 1 : f == 1 ? 2 : unsigned ? 1 : -1;
        }
        return unsigned ? h : h - 5;
    }

    /**
     * @param op     reduction
     * @param type   element type
     * @param nranks ranks
     * @param i      element index
     * @return the reduced value of element i, before wrapping
     */
    public static long reduced(RedOp op, DataType type, int nranks, long i) {
        long acc = input(op, type, 0, i);
        for (int r = 1; r < nranks; r++) {
            long v = input(op, type, r, i);
            acc = switch (op) {
                case SUM, AVG -> acc + v;
                case PROD -> acc * v;
                case MAX -> Math.max(acc, v);
                case MIN -> Math.min(acc, v);
            };
        }
        return acc;
    }

    /**
     * Writes a value as the type.
     *
     * @param seg  buffer
     * @param type element type
     * @param i    element index
     * @param v    the value (small integer)
     */
    public static void put(MemorySegment seg, DataType type, long i, double v) {
        switch (type) {
            case INT8, UINT8 -> seg.set(ValueLayout.JAVA_BYTE, i, (byte) (long) v);
            case INT32, UINT32 -> seg.setAtIndex(ValueLayout.JAVA_INT, i, (int) (long) v);
            case INT64, UINT64 -> seg.setAtIndex(ValueLayout.JAVA_LONG, i, (long) v);
            case FLOAT16 -> seg.setAtIndex(ValueLayout.JAVA_SHORT, i, Float.floatToFloat16((float) v));
            case BFLOAT16 -> seg.setAtIndex(ValueLayout.JAVA_SHORT, i, (short) (Float.floatToRawIntBits((float) v) >>> 16));
            case FLOAT32 -> seg.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) v);
            case FLOAT64 -> seg.setAtIndex(ValueLayout.JAVA_DOUBLE, i, v);
        }
    }

    /**
     * Reads element i as a double (integers as their signed or unsigned value).
     *
     * @param seg  buffer
     * @param type element type
     * @param i    element index
     * @return the value
     */
    public static double get(MemorySegment seg, DataType type, long i) {
        return switch (type) {
            case INT8 -> seg.get(ValueLayout.JAVA_BYTE, i);
            case UINT8 -> Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, i));
            case INT32 -> seg.getAtIndex(ValueLayout.JAVA_INT, i);
            case UINT32 -> Integer.toUnsignedLong(seg.getAtIndex(ValueLayout.JAVA_INT, i));
            case INT64, UINT64 -> seg.getAtIndex(ValueLayout.JAVA_LONG, i);
            case FLOAT16 -> Float.float16ToFloat(seg.getAtIndex(ValueLayout.JAVA_SHORT, i));
            case BFLOAT16 -> Float.intBitsToFloat(seg.getAtIndex(ValueLayout.JAVA_SHORT, i) << 16);
            case FLOAT32 -> seg.getAtIndex(ValueLayout.JAVA_FLOAT, i);
            case FLOAT64 -> seg.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
        };
    }

    /**
     * The expected element after the reduction, as the type holds it.
     *
     * @param op     reduction
     * @param type   element type
     * @param nranks ranks
     * @param i      element index
     * @return the expected value
     */
    public static double expected(RedOp op, DataType type, int nranks, long i) {
        long v = reduced(op, type, nranks, i);
        if (op == RedOp.AVG) {
            return switch (type) {
                case FLOAT16, BFLOAT16, FLOAT32, FLOAT64 -> (double) v / nranks;
                default -> wrap(type, v / nranks);
            };
        }
        return switch (type) {
            case FLOAT16, BFLOAT16, FLOAT32, FLOAT64 -> v;
            default -> wrap(type, v);
        };
    }

    private static double wrap(DataType type, long v) {
        return switch (type) {
            case INT8 -> (byte) v;
            case UINT8 -> v & 0xff;
            case INT32 -> (int) v;
            case UINT32 -> v & 0xffffffffL;
            default -> v;
        };
    }

    /**
     * @param op       reduction
     * @param type     element type
     * @param got      value read
     * @param want     expected value
     * @return whether they match: exactly, but within rounding for AVG of floating types
     */
    public static boolean matches(RedOp op, DataType type, double got, double want) {
        if (op == RedOp.AVG && (type == DataType.FLOAT16 || type == DataType.BFLOAT16 || type == DataType.FLOAT32
                || type == DataType.FLOAT64)) {
            double tol = type == DataType.BFLOAT16 ? 1.0 / 64 : type == DataType.FLOAT16 ? 1.0 / 512 : 1e-5;
            return Math.abs(got - want) <= tol * Math.max(1, Math.abs(want));
        }
        return got == want;
    }
}
