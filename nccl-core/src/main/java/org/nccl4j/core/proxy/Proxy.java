package org.nccl4j.core.proxy;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.wait.AbortFlag;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.nccl4j.core.wait.Threads;

/**
 * The communicator's proxy thread ({@code NCCLproxy <rank>}): progresses every network
 * connection's requests so kernels only ever touch local memory. Spins while work moves, then
 * backs off to short parks once no request is in flight; a kernel that publishes a step wakes it.
 */
public final class Proxy implements AutoCloseable {
    private static final long MAX_PARK_NANOS = 50_000;
    /** A loop round is short; a thread still running after this is stuck in a plugin call. */
    private static final long STOP_MILLIS = 5_000;
    /** How long a stop waits for the posted sends to leave (a live peer takes them in microseconds). */
    private static final long DRAIN_MILLIS = 5_000;

    private final CopyOnWriteArrayList<ProxyTask> tasks = new CopyOnWriteArrayList<>();
    private final AbortFlag abort;
    private final Consumer<NcclException> onError;
    private final Thread thread;
    private volatile boolean stop;

    /**
     * @param rank    the rank, for the thread name
     * @param abort   the communicator's abort flag
     * @param onError receives the failure (the communicator's {@link org.nccl4j.core.wait.CommFailure})
     */
    public Proxy(int rank, AbortFlag abort, Consumer<NcclException> onError) {
        this.abort = abort;
        this.onError = onError;
        this.thread = Thread.ofPlatform().daemon().name("NCCLproxy " + rank).unstarted(this::run);
        thread.start();
    }

    /** @param task a connection to progress from now on */
    public void add(ProxyTask task) {
        tasks.add(task);
        wake();
    }

    /** Wakes the thread if it is parked. */
    public void wake() {
        LockSupport.unpark(thread);
    }

    private void run() {
        int idle = 0;
        try {
            while (!stop && !abort.isSet()) {
                boolean moved = false;
                boolean inFlight = false;
                for (ProxyTask t : tasks) {
                    moved |= t.progress();
                    inFlight |= t.inFlight();
                }
                if (moved) {
                    idle = 0;
                } else if (++idle < 64) {
                    Thread.onSpinWait();
                } else if (idle < 128 || inFlight) {
                    Thread.yield();
                } else {
                    LockSupport.parkNanos(Math.min(MAX_PARK_NANOS, 1000L << Math.min(idle - 128, 6)));
                }
            }
        } catch (NcclException e) {
            fail(e);
        } catch (Exception e) {
            // Net failures arrive as NcclException (NetTask translates them); anything else is a
            // bug here or in a plugin, not a peer going away.
            fail(NcclException.of(Result.INTERNAL_ERROR, "proxy: " + e, "this is a bug in nccl4j or the net plugin; "
                    + "report it with the log", e));
        } catch (Error e) {
            fail(NcclException.of(Result.INTERNAL_ERROR, "proxy: " + e, null, e));
            throw e;
        }
    }

    /** Reports the failure, then aborts so every wait on the communicator ends. */
    private void fail(NcclException e) {
        onError.accept(e);
        abort.set("NCCLproxy failed: " + e.getMessage());
    }

    /** @return whether the proxy thread is still running */
    public boolean isAlive() {
        return thread.isAlive();
    }

    /**
     * Keeps the thread progressing until {@code drained} holds: what the kernels posted has left.
     *
     * @param drained whether the tasks of interest are drained ({@link ProxyTask#drained})
     * @return true once drained; false when the communicator was aborted, the thread has ended,
     *     or {@code DRAIN_MILLIS} passed
     */
    public boolean awaitDrained(BooleanSupplier drained) {
        long deadline = System.nanoTime() + DRAIN_MILLIS * 1_000_000L;
        while (!drained.getAsBoolean()) {
            if (!thread.isAlive() || abort.isSet() || System.nanoTime() >= deadline) {
                return false;
            }
            wake();
            LockSupport.parkNanos(100_000);
        }
        return true;
    }

    /**
     * Stops the thread and closes every task; a thread that does not stop within the bound (stuck
     * in a plugin call) keeps its tasks, whose memory must then not be freed either. Unless the
     * communicator was aborted, the thread first finishes the sends the kernels handed over
     * (every task {@link ProxyTask#drained}), for at most {@code DRAIN_MILLIS}: a kernel ends
     * once it has posted its last step, and a peer still waits for it.
     *
     * @return whether the thread stopped and the tasks were closed
     */
    public boolean stop() {
        awaitDrained(() -> tasks.stream().allMatch(ProxyTask::drained));
        stop = true;
        wake();
        if (!Threads.join(thread, STOP_MILLIS)) {
            return false;
        }
        for (ProxyTask t : tasks) {
            t.close();
        }
        tasks.clear();
        return true;
    }

    @Override
    public void close() {
        stop();
    }
}
