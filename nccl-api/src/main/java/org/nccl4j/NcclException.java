package org.nccl4j;

import java.util.Objects;

/**
 * A failed nccl4j call: NCCL's {@link Result}, what was wrong and a hint on what to do.
 *
 * <p>Subclasses sort failures the way JDBC sorts {@code SQLException}s: {@link NcclUsageException}
 * (the caller's mistake), {@link NcclSystemException} (the operating system, network or device),
 * {@link NcclInternalException} (a broken invariant), {@link NcclRemoteException} (a peer failed)
 * and {@link NcclTimeoutException} (a deadline passed). {@link #of} picks the right one.
 */
public abstract sealed class NcclException extends RuntimeException
        permits NcclUsageException, NcclSystemException, NcclInternalException, NcclRemoteException, NcclTimeoutException {
    private static final long serialVersionUID = 1L;

    private final Result result;
    private final String detail;
    private final String hint;

    /**
     * @param result NCCL's result code; never {@link Result#SUCCESS}
     * @param detail what was wrong, naming the bad value
     * @param hint what to try, or {@code null}
     * @param cause the underlying failure, or {@code null}
     */
    protected NcclException(Result result, String detail, String hint, Throwable cause) {
        super(format(result, detail, hint), cause);
        this.result = Objects.requireNonNull(result, "result");
        this.detail = detail;
        this.hint = hint;
    }

    private static String format(Result result, String detail, String hint) {
        StringBuilder sb = new StringBuilder();
        sb.append(result.name()).append(": ").append(detail);
        if (hint != null && !hint.isEmpty()) {
            sb.append(" (hint: ").append(hint).append(')');
        }
        return sb.toString();
    }

    /**
     * Creates the exception of the right family for a result.
     *
     * @param result NCCL's result code
     * @param detail what was wrong, naming the bad value
     * @param hint what to try, or {@code null}
     * @return the exception, not thrown
     */
    public static NcclException of(Result result, String detail, String hint) {
        return of(result, detail, hint, null);
    }

    /**
     * Creates the exception of the right family for a result.
     *
     * @param result NCCL's result code
     * @param detail what was wrong, naming the bad value
     * @param hint what to try, or {@code null}
     * @param cause the underlying failure, or {@code null}
     * @return the exception, not thrown
     * @throws IllegalArgumentException for {@link Result#SUCCESS}, which is no failure
     */
    public static NcclException of(Result result, String detail, String hint, Throwable cause) {
        return switch (result) {
            case SUCCESS -> throw new IllegalArgumentException("SUCCESS is not a failure: " + detail);
            case INVALID_ARGUMENT, INVALID_USAGE -> new NcclUsageException(result, detail, hint, cause);
            case SYSTEM_ERROR, UNHANDLED_DEVICE_ERROR -> new NcclSystemException(result, detail, hint, cause);
            case REMOTE_ERROR -> new NcclRemoteException(detail, hint, cause);
            case TIMEOUT -> new NcclTimeoutException(detail, hint, cause);
            case INTERNAL_ERROR, IN_PROGRESS -> new NcclInternalException(result, detail, hint, cause);
        };
    }

    /** @return NCCL's result code for this failure */
    public Result result() {
        return result;
    }

    /** @return what was wrong, without the result name or the hint */
    public String detail() {
        return detail;
    }

    /** @return what to try, or {@code null} if there is no hint */
    public String hint() {
        return hint;
    }
}
