package org.nccl4j.core.device.gpu.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.nccl4j.Completion;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.gpu.GpuRuntime;

/** A collective's completion: an event of the GPU runtime recorded on its stream right after the kernel. */
final class GpuCompletion implements Completion {
    /** Events of this process's completions not yet destroyed (tests watch it for leaks). */
    static final java.util.concurrent.atomic.AtomicInteger LIVE = new java.util.concurrent.atomic.AtomicInteger();
    private final GpuCollectives owner;
    private final GpuRuntime ctx;
    private final long event;
    private final String what;
    /** When the work was enqueued ({@link System#nanoTime}), for the watchdog. */
    final long enqueuedAt = System.nanoTime();
    private boolean released;
    private volatile boolean done;

    GpuCompletion(GpuCollectives owner, GpuRuntime ctx, long event, String what) {
        this.owner = owner;
        this.ctx = ctx;
        this.event = event;
        this.what = what;
        LIVE.incrementAndGet();
    }

    @Override
    public synchronized boolean isDone() {
        if (!done && !released && ctx.eventQuery(event)) {
            finish();
        }
        return done;
    }

    @Override
    public void await() {
        if (!await(Duration.ofNanos(owner.opTimeoutNanos()))) {
            NcclException e = NcclException.of(Result.TIMEOUT, what + " did not finish within "
                    + owner.opTimeoutNanos() / 1_000_000 + " ms", "a peer may not have called the same collective;"
                    + " NCCL4J_OP_TIMEOUT_MS sets the bound");
            owner.fail(what, e);
            throw e;
        }
    }

    @Override
    public boolean await(Duration timeout) {
        boolean ok = DeviceWait.await(this::isDone, timeout.toNanos(), owner::abortReason, what);
        if (ok) {
            owner.checkFailure(what);
        }
        return ok;
    }

    @Override
    public CompletableFuture<Void> future() {
        return CompletableFuture.runAsync(this::await);
    }

    /** @return what this completes, for messages */
    String what() {
        return what;
    }

    private void finish() {
        done = true;
        release();
    }

    /**
     * Destroys the event (once). The event is asked first, so that a completion released by the
     * communicator's destroy or abort after its kernel ended still reports done; one whose kernel
     * was still running stays not done.
     */
    synchronized void release() {
        if (!released) {
            released = true;
            if (!done) {
                try {
                    done = ctx.eventQuery(event);
                } catch (NcclException e) {
                    // A failed context: the work did not finish.
                }
            }
            ctx.eventDestroy(event);
            LIVE.decrementAndGet();
        }
    }
}
