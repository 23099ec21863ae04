package org.nccl4j.net.spi;

/**
 * A network plugin's failure. The kind maps to NCCL's result codes in nccl4j.
 */
public class NetException extends Exception {
    private static final long serialVersionUID = 1L;

    /** What kind of failure, in NCCL's terms. */
    public enum Kind {
        /** A system call or the network failed ({@code ncclSystemError}). */
        SYSTEM,
        /** A broken invariant, request exhaustion, truncation ({@code ncclInternalError}). */
        INTERNAL,
        /** An invalid argument ({@code ncclInvalidArgument}). */
        INVALID_ARGUMENT,
        /** Invalid usage ({@code ncclInvalidUsage}). */
        INVALID_USAGE,
        /** The peer went away ({@code ncclRemoteError}). */
        REMOTE
    }

    private final Kind kind;

    /**
     * @param kind    the kind of failure
     * @param message what happened, naming the device, peer or value
     */
    public NetException(Kind kind, String message) {
        this(kind, message, null);
    }

    /**
     * @param kind    the kind of failure
     * @param message what happened, naming the device, peer or value
     * @param cause   the underlying exception, or {@code null}
     */
    public NetException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind == null ? Kind.INTERNAL : kind;
    }

    /** @return the kind of failure */
    public Kind kind() {
        return kind;
    }
}
