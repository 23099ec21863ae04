package org.nccl4j.core.device.gpu.engine;

import java.util.concurrent.atomic.AtomicBoolean;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.Stream;
import org.nccl4j.core.device.gpu.GpuRuntime;

/** A stream of a communicator's GPU: created here (destroyed on close) or wrapped. */
final class GpuStream implements Stream {
    private final GpuCollectives owner;
    private final GpuRuntime ctx;
    private final long handle;
    private final boolean owned;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Closed while work was still queued (after a timeout or abort): its memory must not be freed. */
    private volatile boolean leftRunning;

    GpuStream(GpuCollectives owner, GpuRuntime ctx, long handle, boolean owned) {
        this.owner = owner;
        this.ctx = ctx;
        this.handle = handle;
        this.owned = owned;
    }

    GpuCollectives owner() {
        return owner;
    }

    @Override
    public long handle() {
        return handle;
    }

    boolean isClosed() {
        return closed.get();
    }

    @Override
    public void synchronize() {
        if (!synchronize(owner.opTimeoutNanos())) {
            throw NcclException.of(Result.TIMEOUT, "stream " + this + " did not finish within "
                    + owner.opTimeoutNanos() / 1_000_000 + " ms", "a peer may not have called the same collective;"
                    + " NCCL4J_OP_TIMEOUT_MS sets the bound");
        }
        owner.checkFailure("stream " + this);
    }

    /** @return whether everything enqueued so far finished within the bound */
    boolean synchronize(long timeoutNanos) {
        long event = ctx.eventCreate(false);
        try {
            ctx.eventRecord(event, handle);
            return DeviceWait.await(() -> ctx.eventQuery(event), timeoutNanos, owner::abortReason, "stream " + this);
        } finally {
            ctx.eventDestroy(event);
        }
    }

    @Override
    public boolean query() {
        return ctx.streamQuery(handle);
    }

    @Override
    public void close() {
        if (closed.get()) {
            return;
        }
        boolean done;
        try {
            done = synchronize(owner.opTimeoutNanos());
        } catch (NcclException e) {
            done = false;
        }
        release(done);
    }

    /**
     * Marks the stream closed and destroys it if it is ours and idle (a stream with work still
     * queued is left to the driver rather than destroyed under it); idempotent.
     *
     * @param idle whether everything enqueued on it has finished
     */
    void release(boolean idle) {
        if (closed.compareAndSet(false, true)) {
            leftRunning = !idle;
            if (owned && idle) {
                ctx.streamDestroy(handle);
            }
        }
    }

    /** @return whether it was closed with work still queued */
    boolean leftRunning() {
        return leftRunning;
    }

    @Override
    public String toString() {
        return "cudaStream 0x" + Long.toHexString(handle);
    }
}
