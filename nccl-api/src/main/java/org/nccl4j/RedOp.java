package org.nccl4j;

/** NCCL's reduction operations ({@code ncclRedOp_t}) with NCCL's numeric values. */
public enum RedOp {
    /** Sum. */
    SUM(0),
    /** Product. */
    PROD(1),
    /** Maximum. */
    MAX(2),
    /** Minimum. */
    MIN(3),
    /** Average: the sum divided by the number of ranks (NCCL 2.10). */
    AVG(4);

    private final int code;

    RedOp(int code) {
        this.code = code;
    }

    /** @return NCCL's numeric value */
    public int code() {
        return code;
    }

    /**
     * @param code NCCL's numeric value
     * @return the operation with that value
     * @throws NcclException with {@link Result#INVALID_ARGUMENT} if there is none
     */
    public static RedOp of(int code) {
        for (RedOp op : values()) {
            if (op.code == code) {
                return op;
            }
        }
        throw NcclException.of(Result.INVALID_ARGUMENT, "invalid reduction operation " + code,
                "use one of " + java.util.Arrays.toString(values()));
    }
}
