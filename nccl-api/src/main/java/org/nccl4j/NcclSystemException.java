package org.nccl4j;

/** The operating system, the network or a device failed ({@link Result#SYSTEM_ERROR}, {@link Result#UNHANDLED_DEVICE_ERROR}). */
public final class NcclSystemException extends NcclException {
    private static final long serialVersionUID = 1L;

    /**
     * Use {@link NcclException#of} to create one.
     *
     * @param result see {@link NcclException#of}
     * @param detail see {@link NcclException#of}
     * @param hint see {@link NcclException#of}
     * @param cause see {@link NcclException#of}
     */
    NcclSystemException(Result result, String detail, String hint, Throwable cause) {
        super(result, detail, hint, cause);
    }
}
