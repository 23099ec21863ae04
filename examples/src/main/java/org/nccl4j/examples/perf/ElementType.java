package org.nccl4j.examples.perf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Locale;
import org.nccl4j.DataType;

/**
 * An NCCL element type as nccl-tests names and handles it: reading and writing elements as raw
 * bits, and encoding the small integers the data check uses.
 *
 * <p>Raw bits are the element's bytes as an unsigned number in a {@code long} (a 16-bit float is
 * 0 to 0xffff), so elements of every type compare bit for bit, as nccl-tests does.
 */
public enum ElementType {
    /** int8. */
    INT8(DataType.INT8, "int8"),
    /** uint8. */
    UINT8(DataType.UINT8, "uint8"),
    /** int32. */
    INT32(DataType.INT32, "int32"),
    /** uint32. */
    UINT32(DataType.UINT32, "uint32"),
    /** int64. */
    INT64(DataType.INT64, "int64"),
    /** uint64. */
    UINT64(DataType.UINT64, "uint64"),
    /** IEEE half. */
    HALF(DataType.FLOAT16, "half"),
    /** IEEE single. */
    FLOAT(DataType.FLOAT32, "float"),
    /** IEEE double. */
    DOUBLE(DataType.FLOAT64, "double"),
    /** bfloat16. */
    BFLOAT16(DataType.BFLOAT16, "bfloat16");

    private final DataType type;
    private final String testName;

    ElementType(DataType type, String testName) {
        this.type = type;
        this.testName = testName;
    }

    /** @return the API's type */
    public DataType type() {
        return type;
    }

    /** @return nccl-tests' name, as printed in the {@code type} column */
    public String testName() {
        return testName;
    }

    /** @return bytes per element */
    public int size() {
        return type.size();
    }

    /** @return whether this is a floating-point type */
    public boolean isFloat() {
        return this == HALF || this == FLOAT || this == DOUBLE || this == BFLOAT16;
    }

    /** @return whether this is an unsigned integer type */
    public boolean isUnsigned() {
        return this == UINT8 || this == UINT32 || this == UINT64;
    }

    /** @return the mask of the element's bits within a long */
    public long mask() {
        return size() == 8 ? -1L : (1L << (8 * size())) - 1;
    }

    /**
     * Parses a type name: nccl-tests' names ({@code int8 uint8 int32 uint32 int64 uint64 half float
     * double bfloat16}), their C aliases ({@code char int}), {@code float16/float32/float64}, or
     * {@code all}.
     *
     * @param name the name, any case
     * @return the types it names
     * @throws IllegalArgumentException if it names none
     */
    public static List<ElementType> parse(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.equals("all")) {
            return List.of(values());
        }
        ElementType t = switch (n) {
            case "int8", "char" -> INT8;
            case "uint8" -> UINT8;
            case "int32", "int" -> INT32;
            case "uint32" -> UINT32;
            case "int64" -> INT64;
            case "uint64" -> UINT64;
            case "half", "float16", "fp16" -> HALF;
            case "float", "float32", "fp32" -> FLOAT;
            case "double", "float64", "fp64" -> DOUBLE;
            case "bfloat16", "bf16" -> BFLOAT16;
            default -> throw new IllegalArgumentException("unknown data type '" + name
                    + "': use int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all");
        };
        return List.of(t);
    }

    /**
     * @param seg   the buffer
     * @param index element index
     * @return the element's raw bits
     */
    public long read(MemorySegment seg, long index) {
        return switch (size()) {
            case 1 -> seg.get(ValueLayout.JAVA_BYTE, index) & 0xffL;
            case 2 -> seg.getAtIndex(ValueLayout.JAVA_SHORT, index) & 0xffffL;
            case 4 -> seg.getAtIndex(ValueLayout.JAVA_INT, index) & 0xffff_ffffL;
            default -> seg.getAtIndex(ValueLayout.JAVA_LONG, index);
        };
    }

    /**
     * @param seg   the buffer
     * @param index element index
     * @param raw   the element's raw bits
     */
    public void write(MemorySegment seg, long index, long raw) {
        switch (size()) {
            case 1 -> seg.set(ValueLayout.JAVA_BYTE, index, (byte) raw);
            case 2 -> seg.setAtIndex(ValueLayout.JAVA_SHORT, index, (short) raw);
            case 4 -> seg.setAtIndex(ValueLayout.JAVA_INT, index, (int) raw);
            default -> seg.setAtIndex(ValueLayout.JAVA_LONG, index, raw);
        }
    }

    /**
     * @param v a small integer
     * @return its raw bits in this type (two's complement, truncated, for integer types)
     */
    public long encode(long v) {
        return isFloat() ? encodeDouble(v) : v & mask();
    }

    /**
     * @param d a value exactly representable in double
     * @return its raw bits in this (floating-point) type, rounded to nearest-even
     */
    public long encodeDouble(double d) {
        return switch (this) {
            case HALF -> Float.floatToFloat16((float) d) & 0xffffL;
            case BFLOAT16 -> floatToBf16((float) d) & 0xffffL;
            case FLOAT -> Float.floatToRawIntBits((float) d) & 0xffff_ffffL;
            case DOUBLE -> Double.doubleToRawLongBits(d);
            default -> throw new IllegalStateException(this + " is not a floating-point type");
        };
    }

    /**
     * @param raw raw bits of this (floating-point) type
     * @return the value
     */
    public double decodeDouble(long raw) {
        return switch (this) {
            case HALF -> Float.float16ToFloat((short) raw);
            case BFLOAT16 -> Float.intBitsToFloat((int) (raw << 16));
            case FLOAT -> Float.intBitsToFloat((int) raw);
            case DOUBLE -> Double.longBitsToDouble(raw);
            default -> throw new IllegalStateException(this + " is not a floating-point type");
        };
    }

    /**
     * @param magnitude a non-negative value
     * @return the distance between adjacent values of this (floating-point) type near it
     */
    public double ulp(double magnitude) {
        int bits = switch (this) {
            case HALF -> 11;
            case BFLOAT16 -> 8;
            case FLOAT -> 24;
            default -> 53;
        };
        int exp = magnitude == 0 ? -126 : Math.getExponent(magnitude);
        return Math.scalb(1.0, Math.max(exp, -126) - (bits - 1));
    }

    /** Round to nearest-even by the bits that go, as CUDA's {@code __float2bfloat16}. */
    private static short floatToBf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        return (short) ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16);
    }
}
