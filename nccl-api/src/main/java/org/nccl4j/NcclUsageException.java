package org.nccl4j;

/** The caller's mistake: an invalid argument ({@link Result#INVALID_ARGUMENT}) or invalid usage ({@link Result#INVALID_USAGE}). Retrying the same call fails again. */
public final class NcclUsageException extends NcclException {
    private static final long serialVersionUID = 1L;

    /**
     * Use {@link NcclException#of} to create one.
     *
     * @param result see {@link NcclException#of}
     * @param detail see {@link NcclException#of}
     * @param hint see {@link NcclException#of}
     * @param cause see {@link NcclException#of}
     */
    NcclUsageException(Result result, String detail, String hint, Throwable cause) {
        super(result, detail, hint, cause);
    }
}
