package org.nccl4j.core.stream;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.nccl4j.Completion;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * A {@link Completion} backed by a future the stream thread completes. {@link #await()} is bounded
 * as {@link HostStream#synchronize()} is: it fails with {@code TIMEOUT} if the stream stalls.
 */
public final class HostCompletion implements Completion {
    private final CompletableFuture<Void> future = new CompletableFuture<>();
    private final HostStream stream;

    /** @param stream the stream the operation is enqueued on */
    public HostCompletion(HostStream stream) {
        this.stream = stream;
    }

    /** Marks the operation done. */
    public void complete() {
        future.complete(null);
    }

    /**
     * Marks the operation failed.
     *
     * @param e the failure
     */
    public void fail(NcclException e) {
        future.completeExceptionally(e);
    }

    @Override
    public boolean isDone() {
        return future.isDone();
    }

    @Override
    public void await() {
        // Run the launches up to this one on this thread rather than sleep until the stream has.
        while (!future.isDone() && stream.runNext()) {
            // ran one; the next may be this one's
        }
        stream.handOff();
        // Its launch is among those submitted so far: the stream finishing them all completes it.
        long since = System.nanoTime();
        while (!await(Duration.ofMillis(100))) {
            if (!stream.awaitFinished(stream.submittedCount(), 0, true, since) && !future.isDone()) {
                throw stream.stalled();
            }
        }
    }

    @Override
    public boolean await(Duration timeout) {
        try {
            future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw NcclException.of(Result.SYSTEM_ERROR, "interrupted while waiting for an operation", null, e);
        }
    }

    @Override
    public CompletableFuture<Void> future() {
        return future.copy();
    }

    /**
     * @param t a launch's failure
     * @return the exception a waiting caller throws for it: the same result, the caller's stack
     */
    public static NcclException rethrow(Throwable t) {
        if (t instanceof NcclException n) {
            // A fresh exception carries the waiting thread's stack; the cause keeps the kernel's.
            return NcclException.of(n.result(), n.detail(), n.hint(), n);
        }
        return NcclException.of(Result.INTERNAL_ERROR, "operation failed: " + t, null, t);
    }
}
