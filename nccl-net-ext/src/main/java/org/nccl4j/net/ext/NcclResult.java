package org.nccl4j.net.ext;

import org.nccl4j.net.spi.NetException;

/** {@code ncclResult_t} codes returned by plugins, named, and mapped to {@link NetException.Kind}. */
final class NcclResult {
    private static final String[] NAMES = {"ncclSuccess", "ncclUnhandledCudaError", "ncclSystemError",
        "ncclInternalError", "ncclInvalidArgument", "ncclInvalidUsage", "ncclRemoteError", "ncclInProgress"};

    private NcclResult() {
    }

    /**
     * @param rc a result code
     * @return e.g. {@code ncclInternalError (3)}
     */
    static String describe(int rc) {
        return (rc >= 0 && rc < NAMES.length ? NAMES[rc] : "unknown result") + " (" + rc + ")";
    }

    /**
     * @param rc a non-zero result code
     * @return its kind
     */
    static NetException.Kind kind(int rc) {
        return switch (rc) {
            case 2 -> NetException.Kind.SYSTEM;
            case 4 -> NetException.Kind.INVALID_ARGUMENT;
            case 5 -> NetException.Kind.INVALID_USAGE;
            case 6 -> NetException.Kind.REMOTE;
            default -> NetException.Kind.INTERNAL;
        };
    }

    /**
     * @param rc   a non-zero result code
     * @param what the call and its context, e.g. {@code "Fixture isend"}
     * @return the exception
     */
    static NetException failure(int rc, String what) {
        return new NetException(kind(rc), what + " returned " + describe(rc));
    }
}
