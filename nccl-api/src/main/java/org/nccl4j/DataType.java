package org.nccl4j;

/** NCCL's element types ({@code ncclDataType_t}) with NCCL's numeric values and sizes. */
public enum DataType {
    /** Signed 8-bit integer ({@code ncclInt8}, alias {@code ncclChar}). */
    INT8(0, 1),
    /** Unsigned 8-bit integer. */
    UINT8(1, 1),
    /** Signed 32-bit integer ({@code ncclInt32}, alias {@code ncclInt}). */
    INT32(2, 4),
    /** Unsigned 32-bit integer. */
    UINT32(3, 4),
    /** Signed 64-bit integer. */
    INT64(4, 8),
    /** Unsigned 64-bit integer. */
    UINT64(5, 8),
    /** IEEE 754 half precision ({@code ncclFloat16}, alias {@code ncclHalf}). */
    FLOAT16(6, 2),
    /** IEEE 754 single precision ({@code ncclFloat32}, alias {@code ncclFloat}). */
    FLOAT32(7, 4),
    /** IEEE 754 double precision ({@code ncclFloat64}, alias {@code ncclDouble}). */
    FLOAT64(8, 8),
    /** bfloat16 ({@code ncclBfloat16}). */
    BFLOAT16(9, 2);

    private final int code;
    private final int size;

    DataType(int code, int size) {
        this.code = code;
        this.size = size;
    }

    /** @return NCCL's numeric value */
    public int code() {
        return code;
    }

    /** @return the size of one element in bytes */
    public int size() {
        return size;
    }

    /**
     * @param code NCCL's numeric value
     * @return the type with that value
     * @throws NcclException with {@link Result#INVALID_ARGUMENT} if there is none
     */
    public static DataType of(int code) {
        for (DataType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw NcclException.of(Result.INVALID_ARGUMENT, "invalid data type " + code,
                "use one of " + java.util.Arrays.toString(values()));
    }
}
