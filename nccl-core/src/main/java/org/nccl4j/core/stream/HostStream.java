package org.nccl4j.core.stream;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.Stream;

/**
 * The host backend's stream: one thread runs the enqueued launches in order. It spins briefly
 * when the queue runs dry (back-to-back operations then cost no wake-up), then parks until the
 * next submit. The first failure is kept and reported by {@link #synchronize()}.
 */
public final class HostStream implements Stream {
    private static final AtomicInteger IDS = new AtomicInteger();
    private static final long SPIN_NANOS = 50_000;

    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    private final AtomicLong submitted = new AtomicLong();
    private final AtomicLong finished = new AtomicLong();
    private final Thread thread;
    /**
     * Threads in {@link #synchronize()} and the task count each waits for: woken once it is
     * reached, so they neither poll nor wake for every finished task.
     */
    private final ConcurrentHashMap<Thread, Long> waiters = new ConcurrentHashMap<>();
    private volatile NcclException error;
    private volatile boolean closed;

    /** Starts the stream's thread. */
    public HostStream() {
        thread = Thread.ofPlatform().daemon().name("nccl4j-stream-" + IDS.incrementAndGet()).start(this::loop);
    }

    /**
     * Enqueues work; it runs after everything enqueued before it.
     *
     * @param work the launch; it reports its own outcome to its completions
     */
    public void submit(Runnable work) {
        if (closed) {
            throw NcclException.of(Result.INVALID_USAGE, "stream " + thread.getName() + " is closed", null);
        }
        submitted.incrementAndGet();
        queue.add(work);
        LockSupport.unpark(thread);
    }

    /**
     * Records a launch's failure so {@link #synchronize()} reports it.
     *
     * @param e the failure
     */
    public void recordError(NcclException e) {
        if (error == null) {
            error = e;
        }
    }

    private void loop() {
        long idleSince = 0;
        while (!closed || !queue.isEmpty()) {
            Runnable r = queue.poll();
            if (r != null) {
                try {
                    r.run();
                } catch (RuntimeException | Error e) {
                    // Launches report their own failures; this keeps the thread alive if one cannot.
                    recordError(NcclException.of(Result.INTERNAL_ERROR, "stream task failed: " + e, null, e));
                } finally {
                    long f = finished.incrementAndGet();
                    if (!waiters.isEmpty()) {
                        waiters.forEach((t, target) -> {
                            if (target <= f) {
                                LockSupport.unpark(t);
                            }
                        });
                    }
                }
                idleSince = 0;
                continue;
            }
            if (idleSince == 0) {
                idleSince = System.nanoTime();
            }
            if (System.nanoTime() - idleSince < SPIN_NANOS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(this, 10_000_000);
            }
        }
    }

    @Override
    public void synchronize() {
        long target = submitted.get();
        // Park rather than spin: on a small machine a spinning waiter takes the core the stream
        // (and the peers) need. The stream thread unparks waiters after every task.
        Thread me = Thread.currentThread();
        waiters.put(me, target);
        try {
            while (finished.get() < target) {
                if (!thread.isAlive()) {
                    throw NcclException.of(Result.INTERNAL_ERROR, "stream thread " + thread.getName() + " died", null);
                }
                LockSupport.parkNanos(this, 100_000_000);
            }
        } finally {
            waiters.remove(me);
        }
        NcclException e = error;
        if (e != null) {
            error = null;
            throw HostCompletion.rethrow(e);
        }
    }

    @Override
    public boolean query() {
        return finished.get() >= submitted.get();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            LockSupport.unpark(thread);
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return thread.getName();
    }
}
