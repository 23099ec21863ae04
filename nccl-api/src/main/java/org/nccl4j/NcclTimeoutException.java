package org.nccl4j;

/** A deadline passed before the operation completed ({@link Result#TIMEOUT}). The communicator is unusable: abort it and build a new one. */
public final class NcclTimeoutException extends NcclException {
    private static final long serialVersionUID = 1L;

    /**
     * Use {@link NcclException#of} to create one.
     *
     * @param detail see {@link NcclException#of}
     * @param hint see {@link NcclException#of}
     * @param cause see {@link NcclException#of}
     */
    NcclTimeoutException(String detail, String hint, Throwable cause) {
        super(Result.TIMEOUT, detail, hint, cause);
    }
}
