package org.nccl4j;

/**
 * NCCL's result codes ({@code ncclResult_t}). Values 0-5 are NCCL 2.10's; {@link #REMOTE_ERROR} (6)
 * and {@link #IN_PROGRESS} (7) are the values later NCCL releases gave them; {@link #TIMEOUT} (8)
 * is nccl4j's own (NCCL has no timeout result: 8 is its {@code ncclNumResults}), since every wait
 * here has a deadline.
 */
public enum Result {
    /** The call succeeded. */
    SUCCESS(0, "no error"),
    /** A device (CUDA/HIP) call failed. */
    UNHANDLED_DEVICE_ERROR(1, "unhandled cuda error (run with NCCL_DEBUG=INFO for details)"),
    /** A system call, socket or network operation failed. */
    SYSTEM_ERROR(2, "unhandled system error (run with NCCL_DEBUG=INFO for details)"),
    /** An invariant of the library broke; a bug or a protocol mismatch. */
    INTERNAL_ERROR(3, "internal error - please report this issue to the nccl4j developers"),
    /** An argument was invalid. */
    INVALID_ARGUMENT(4, "invalid argument (run with NCCL_DEBUG=WARN for details)"),
    /** The API was used in a way it does not allow. */
    INVALID_USAGE(5, "invalid usage (run with NCCL_DEBUG=WARN for details)"),
    /** A remote process exited or the network failed ({@code ncclRemoteError}, NCCL 2.12+). */
    REMOTE_ERROR(6, "remote process exited or there was a network error"),
    /** A non-blocking operation has not completed yet ({@code ncclInProgress}, NCCL 2.14+). */
    IN_PROGRESS(7, "NCCL operation in progress"),
    /** A deadline passed. nccl4j's own code: NCCL has none. */
    TIMEOUT(8, "timeout");

    private final int code;
    private final String text;

    Result(int code, String text) {
        this.code = code;
        this.text = text;
    }

    /** @return NCCL's numeric value of this result */
    public int code() {
        return code;
    }

    /** @return NCCL's error string for this result ({@code ncclGetErrorString}) */
    public String text() {
        return text;
    }

    /**
     * @param code a numeric {@code ncclResult_t}
     * @return the result with that value
     * @throws NcclException with {@link #INVALID_ARGUMENT} if no result has that value
     */
    public static Result of(int code) {
        for (Result r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        throw NcclException.of(INVALID_ARGUMENT, "invalid result code " + code,
                "use one of " + java.util.Arrays.toString(values()));
    }
}
