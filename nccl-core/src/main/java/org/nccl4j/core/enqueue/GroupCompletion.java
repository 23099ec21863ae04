package org.nccl4j.core.enqueue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.nccl4j.Completion;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * The completion of a device operation called inside a group: it has no device event until
 * groupEnd launches the group; then it becomes the launch's completion, or fails with the group's
 * error when nothing was launched.
 */
final class GroupCompletion implements Completion {
    private final CompletableFuture<Completion> launched = new CompletableFuture<>();
    private final String what;
    private final int rank;

    /** @param what the operation, for messages */
    GroupCompletion(String what) {
        this(what, -1);
    }

    /**
     * A collective's completion; its name is put together only for a message (not on every call).
     *
     * @param kind the collective's NCCL name
     * @param rank the calling rank
     */
    GroupCompletion(String kind, int rank) {
        this.what = kind;
        this.rank = rank;
    }

    private String what() {
        return rank < 0 ? what : what + " of rank " + rank;
    }

    /** @param c the launch's completion ({@code null}: nothing to wait for, e.g. an empty group) */
    void bind(Completion c) {
        launched.complete(c);
    }

    void fail(NcclException e) {
        launched.completeExceptionally(e);
    }

    @Override
    public boolean isDone() {
        if (!launched.isDone()) {
            return false;
        }
        Completion c = launched.getNow(null);
        return c == null || c.isDone();
    }

    @Override
    public void await() {
        Completion c = launchedOrThrow(0);
        if (c != null) {
            c.await();
        }
    }

    @Override
    public boolean await(Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        Completion c;
        try {
            c = launchedOrThrow(timeout.toNanos());
        } catch (NcclException e) {
            if (e.result() == Result.INVALID_USAGE && !launched.isDone()) {
                return false;
            }
            throw e;
        }
        return c == null || c.await(Duration.ofNanos(Math.max(0, end - System.nanoTime())));
    }

    @Override
    public CompletableFuture<Void> future() {
        return launched.thenCompose(c -> c == null ? CompletableFuture.completedFuture(null) : c.future());
    }

    /** The launch's completion, waiting at most {@code nanos} for groupEnd (another thread's). */
    private Completion launchedOrThrow(long nanos) {
        try {
            return launched.get(nanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw NcclException.of(Result.INVALID_USAGE, what() + " awaited before its group was ended",
                    "call Nccl.groupEnd() before waiting for operations of the group");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof NcclException n) {
                throw NcclException.of(n.result(), n.detail(), n.hint(), n);
            }
            throw NcclException.of(Result.INTERNAL_ERROR, what() + " failed: " + e.getCause(), null, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw NcclException.of(Result.SYSTEM_ERROR, "interrupted while waiting for " + what(), null, e);
        }
    }
}
