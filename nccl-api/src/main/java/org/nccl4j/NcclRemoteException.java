package org.nccl4j;

/** A peer process exited or the network between ranks failed ({@link Result#REMOTE_ERROR}). The communicator is unusable: abort it and build a new one. */
public final class NcclRemoteException extends NcclException {
    private static final long serialVersionUID = 1L;

    /**
     * Use {@link NcclException#of} to create one.
     *
     * @param detail see {@link NcclException#of}
     * @param hint see {@link NcclException#of}
     * @param cause see {@link NcclException#of}
     */
    NcclRemoteException(String detail, String hint, Throwable cause) {
        super(Result.REMOTE_ERROR, detail, hint, cause);
    }
}
