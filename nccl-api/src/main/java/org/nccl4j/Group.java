package org.nccl4j;

/**
 * A group ({@link Nccl#groupStart()} ... {@link Nccl#groupEnd()}) as a try-with-resources scope,
 * opened by {@link Nccl#group()} on the calling thread and ended by {@link #close()} on it.
 */
public final class Group implements AutoCloseable {
    private final Thread owner = Thread.currentThread();
    private boolean closed;

    Group() {
    }

    /**
     * Ends the group ({@link Nccl#groupEnd()}); a second close does nothing.
     *
     * @throws NcclException the first error of the group (nothing of it was launched), or
     *     {@link Result#INVALID_USAGE} if called on another thread than the one that opened it
     */
    @Override
    public void close() {
        if (Thread.currentThread() != owner) {
            throw NcclException.of(Result.INVALID_USAGE, "group opened on thread " + owner.getName()
                    + " closed on " + Thread.currentThread().getName(), "groups belong to the thread that opens them");
        }
        if (!closed) {
            closed = true;
            Nccl.groupEnd();
        }
    }
}
