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
    /** Queue depth at which a submitter waits (a CUDA launch queue is bounded too). */
    private static final long HIGH_WATER = 64;
    /** ... until the queue is down to this depth, so it wakes once per many launches. */
    private static final long LOW_WATER = 16;
    /** Longest a submitter is held back. */
    private static final long THROTTLE_NANOS = 2_000_000;

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
        long n = submitted.incrementAndGet();
        queue.add(work);
        LockSupport.unpark(thread);
        if (n - finished.get() > HIGH_WATER && Thread.currentThread() != thread) {
            // On the host backend the "device" shares the CPU with the caller: a caller that
            // races ahead enqueuing steals the cores the kernels need. Let the queue drain, but
            // only briefly: one thread may be feeding several communicators whose kernels need
            // each other's next launch.
            awaitFinished(n - LOW_WATER, THROTTLE_NANOS);
        }
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
        awaitFinished(submitted.get(), Long.MAX_VALUE);
        NcclException e = error;
        if (e != null) {
            error = null;
            throw HostCompletion.rethrow(e);
        }
    }

    /**
     * Parks until {@code target} tasks have finished. Parking rather than spinning: on a small
     * machine a spinning waiter takes the core the stream (and the peers) need. The stream
     * thread unparks a waiter once its target is reached.
     */
    private void awaitFinished(long target, long maxNanos) {
        Thread me = Thread.currentThread();
        waiters.put(me, target);
        long start = System.nanoTime();
        try {
            while (finished.get() < target) {
                if (!thread.isAlive()) {
                    throw NcclException.of(Result.INTERNAL_ERROR, "stream thread " + thread.getName() + " died", null);
                }
                long left = maxNanos - (System.nanoTime() - start);
                if (left <= 0) {
                    return;
                }
                LockSupport.parkNanos(this, Math.min(left, 100_000_000));
            }
        } finally {
            waiters.remove(me);
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
