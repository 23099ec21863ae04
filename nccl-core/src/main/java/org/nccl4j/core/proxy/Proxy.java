package org.nccl4j.core.proxy;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.wait.AbortFlag;

/**
 * The communicator's proxy thread ({@code NCCLproxy <rank>}): progresses every network
 * connection's requests so kernels only ever touch local memory. Spins while work moves, then
 * backs off to short parks; a kernel that publishes a step wakes it.
 */
public final class Proxy implements AutoCloseable {
    private static final long MAX_PARK_NANOS = 50_000;

    private final CopyOnWriteArrayList<ProxyTask> tasks = new CopyOnWriteArrayList<>();
    private final AbortFlag abort;
    private final Consumer<NcclException> onError;
    private final Thread thread;
    private volatile boolean stop;

    /**
     * @param rank    the rank, for the thread name
     * @param abort   the communicator's abort flag
     * @param onError receives the first failure (the communicator's async error)
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
                for (ProxyTask t : tasks) {
                    moved |= t.progress();
                }
                if (moved) {
                    idle = 0;
                } else if (++idle < 64) {
                    Thread.onSpinWait();
                } else if (idle < 128) {
                    Thread.yield();
                } else {
                    LockSupport.parkNanos(Math.min(MAX_PARK_NANOS, 1000L << Math.min(idle - 128, 6)));
                }
            }
        } catch (NcclException e) {
            fail(e);
        } catch (Exception e) {
            fail(NcclException.of(Result.REMOTE_ERROR, "proxy: " + e.getMessage(),
                    "a peer exited or the network failed; abort the communicator", e));
        }
    }

    private void fail(NcclException e) {
        Log.info(Subsys.NET, "NCCLproxy failed: %s", e.getMessage());
        onError.accept(e);
    }

    /** Stops the thread (bounded) and closes every task. */
    @Override
    public void close() {
        stop = true;
        wake();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (ProxyTask t : tasks) {
            t.close();
        }
        tasks.clear();
    }
}
