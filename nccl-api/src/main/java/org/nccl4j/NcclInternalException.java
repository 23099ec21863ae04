package org.nccl4j;

/** A broken invariant inside nccl4j or a protocol mismatch between ranks ({@link Result#INTERNAL_ERROR}). */
public final class NcclInternalException extends NcclException {
    private static final long serialVersionUID = 1L;

    /**
     * Use {@link NcclException#of} to create one.
     *
     * @param result see {@link NcclException#of}
     * @param detail see {@link NcclException#of}
     * @param hint see {@link NcclException#of}
     * @param cause see {@link NcclException#of}
     */
    NcclInternalException(Result result, String detail, String hint, Throwable cause) {
        super(result, detail, hint, cause);
    }
}
