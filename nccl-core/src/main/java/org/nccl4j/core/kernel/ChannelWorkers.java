package org.nccl4j.core.kernel;

import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.wait.Threads;

/**
 * The threads that run a collective's channels beyond the first, one per channel (a kernel's
 * thread blocks). A launch hands each worker its channel through a sequence number in a field
 * the worker polls, runs channel 0 on its own thread and polls the workers' finish counts:
 * no queue, no future. An idle worker keeps polling for {@code spinNanos} after its last channel
 * before it parks, so back-to-back calls, and a training loop's calls between compute steps
 * shorter than that, wake no thread: a wake-up of a parked thread (tens of microseconds on an
 * idle core, more where it sleeps deeply) cost more than a small collective when each call went
 * through a thread pool and a {@code join} (two wakes per extra channel).
 */
final class ChannelWorkers {
    /** Rounds spun before the clock is read. */
    private static final int FREE_ROUNDS = 64;
    /** A launcher waiting for workers yields until this long, then parks briefly. */
    private static final long YIELD_NANOS = 1_000_000;
    /** Longest park of an idle worker: bounds the cost of a missed unpark (none is expected). */
    private static final long PARK_NANOS = 10_000_000;

    private final Worker[] workers;
    private final long spinNanos;

    /**
     * Starts the workers.
     *
     * @param count     workers (channels beyond the first), at least 1
     * @param name      thread name prefix; worker {@code i} is {@code name + i}
     * @param spinNanos how long an idle worker and a waiting launcher poll before parking
     */
    ChannelWorkers(int count, String name, long spinNanos) {
        this.spinNanos = spinNanos;
        workers = new Worker[count];
        for (int i = 0; i < count; i++) {
            workers[i] = new Worker(i + 1, name + (i + 1));
        }
        for (Worker w : workers) {
            w.thread.start();
        }
    }

    /**
     * Runs {@code channel} for channels {@code 0..n-1}: 0 on the calling thread, the others on
     * the workers, and returns once every one has returned. A channel that throws does not stop
     * the others (the caller's {@code channel} records failures and aborts); an {@link Error} on a
     * worker is rethrown here.
     *
     * @param n       channels, from 1 to {@code count + 1}
     * @param channel runs one channel; must not throw for a worker (it records instead)
     */
    void run(int n, IntConsumer channel) {
        for (int c = 1; c < n; c++) {
            workers[c - 1].post(channel);
        }
        RuntimeException own = null;
        try {
            channel.accept(0);
        } catch (RuntimeException e) {
            own = e;
        }
        for (int c = 1; c < n; c++) {
            Throwable t = workers[c - 1].awaitFinished();
            if (t instanceof Error err) {
                throw err;
            }
        }
        if (own != null) {
            throw own;
        }
    }

    /**
     * Stops the workers: each ends after the channel it runs (a kernel's waits observe the
     * abort flag within milliseconds).
     *
     * @param millis bound on each worker's exit
     * @return whether every worker has ended
     */
    boolean stop(long millis) {
        for (Worker w : workers) {
            w.stopped = true;
            LockSupport.unpark(w.thread);
        }
        boolean all = true;
        for (Worker w : workers) {
            all &= Threads.join(w.thread, millis);
        }
        return all;
    }

    /** One worker: its posted and finished counts and what it runs. */
    private final class Worker {
        private final int channel;
        private final Thread thread;
        /** Written before {@link #posted} is raised, read after it is seen. */
        private IntConsumer task;
        private volatile long posted;
        private volatile long finished;
        /** Set while the worker parks or is about to: a poster unparks it then. */
        private volatile boolean sleeping;
        private volatile boolean stopped;
        /** What the last task threw, read after {@link #finished} is seen. */
        private Throwable thrown;

        Worker(int channel, String name) {
            this.channel = channel;
            this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::loop);
        }

        void post(IntConsumer t) {
            task = t;
            posted = posted + 1; // one launcher at a time (the engine's lock)
            // After the volatile write: a worker that set sleeping before it is parked or sees the post.
            if (sleeping) {
                LockSupport.unpark(thread);
            }
        }

        /** @return what the task threw, or {@code null} */
        Throwable awaitFinished() {
            long target = posted;
            long start = 0;
            for (int round = 1; finished < target; round++) {
                if (round < FREE_ROUNDS) {
                    Thread.onSpinWait();
                    continue;
                }
                if (start == 0) {
                    start = System.nanoTime();
                }
                if (!thread.isAlive()) {
                    throw NcclException.of(Result.INTERNAL_ERROR, "channel worker " + thread.getName()
                            + " ended during a collective", null);
                }
                long waited = System.nanoTime() - start;
                if (waited < spinNanos) {
                    Thread.onSpinWait();
                } else if (waited < YIELD_NANOS) {
                    Thread.yield(); // oversubscribed: the worker may need this core
                } else {
                    // The worker's channel is bounded by its own waits' deadlines and the abort flag.
                    LockSupport.parkNanos(20_000);
                }
            }
            Throwable t = thrown;
            thrown = null;
            return t;
        }

        void loop() {
            long seen = 0;
            while (!stopped) {
                if (!idleUntilPosted(seen)) {
                    continue;
                }
                seen = posted;
                try {
                    task.accept(channel);
                } catch (Throwable t) {
                    thrown = t;
                } finally {
                    task = null;
                    finished = seen;
                }
            }
        }

        /** Polls, then parks, until a task beyond {@code seen} is posted; false on a spurious return or stop. */
        private boolean idleUntilPosted(long seen) {
            long start = 0;
            for (int round = 1; !stopped; round++) {
                if (posted != seen) {
                    return true;
                }
                if (round < FREE_ROUNDS) {
                    Thread.onSpinWait();
                    continue;
                }
                if (start == 0) {
                    start = System.nanoTime();
                }
                if (System.nanoTime() - start < spinNanos) {
                    Thread.onSpinWait();
                    continue;
                }
                sleeping = true;
                if (posted == seen && !stopped) {
                    LockSupport.parkNanos(this, PARK_NANOS);
                }
                sleeping = false;
                return posted != seen;
            }
            return false;
        }
    }
}
