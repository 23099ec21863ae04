package org.nccl4j.core.stream;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.Stream;
import org.nccl4j.core.wait.Threads;

/**
 * The host backend's stream: one thread runs the enqueued launches in order. It spins briefly
 * when the queue runs dry (back-to-back operations then cost no wake-up), then parks until the
 * next submit. The first failure is kept and reported by {@link #synchronize()}.
 *
 * <p>A caller about to block on the stream runs the work itself instead of handing it over and
 * sleeping until it is done: {@link #enterIfIdle} lets a blocking call run its launch on the
 * calling thread when nothing is queued or running, and a thread waiting in {@link #synchronize()} or
 * {@link HostCompletion#await()} runs the queued launches it waits for. Each costs the caller no
 * wake-up of the stream thread and no wake-up of its own; one lock keeps a single launch
 * running at a time, in submission order. ForkJoinPool workers do not (see {@link #mayRunHere}).
 *
 * <p>Every wait on it is bounded: a launch's own waits fail after {@code NCCL4J_OP_TIMEOUT_MS}
 * without progress, so a stream that finishes no launch for that long plus a grace period is
 * stuck (a bug, or a plugin call that never returns) and {@link #synchronize()} and
 * {@link HostCompletion#await()} fail with {@code TIMEOUT} instead of waiting forever. An
 * {@link Error} in a launch ends the thread (it propagates); waiters then fail at once.
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
    /** Beyond the op timeout, time for the failing wait to notice and report (it checks every few ms). */
    static final long GRACE_NANOS = 10_000_000_000L;

    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    /** Held while a launch runs, by the stream thread or a caller running it. */
    private final ReentrantLock exec = new ReentrantLock();
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
    /** Set when the thread ends on an {@link Error}. */
    private volatile Throwable died;
    private final long stallNanos;
    /** Who hears that the launch running now stalled, on the stream's thread or a caller's, or {@code null}. */
    private volatile Stalled running;
    /** The thread running a launch now (the stream's, or a caller's), or {@code null}: a stall report shows where it is. */
    private volatile Thread runner;
    /**
     * When the last queued launch finished, or the first was submitted after an idle spell; or
     * {@link #UNSTAMPED} since a caller began a launch inline, which reads no clock (a clock read
     * is a good part of a small call): a wait then judges progress from its own start.
     */
    private volatile long lastProgress = System.nanoTime();
    private static final long UNSTAMPED = Long.MIN_VALUE;

    /**
     * Starts the stream's thread.
     *
     * @param opTimeoutNanos the communicator's {@code NCCL4J_OP_TIMEOUT_MS}, in ns: a stream that
     *                       finishes nothing for this long plus {@link #GRACE_NANOS} is stuck
     */
    public HostStream(long opTimeoutNanos) {
        this.stallNanos = opTimeoutNanos + GRACE_NANOS;
        thread = Thread.ofPlatform().daemon().name("nccl4j-stream-" + IDS.incrementAndGet()).start(this::loop);
    }

    /**
     * Enqueues work; it runs after everything enqueued before it.
     *
     * @param work the launch; it reports its own outcome to its completions
     */
    public void submit(Runnable work) {
        if (closed || died != null) {
            throw NcclException.of(Result.INVALID_USAGE, "stream " + thread.getName() + " is "
                    + (closed ? "closed" : "dead: " + died), null);
        }
        if (query()) {
            lastProgress = System.nanoTime();
        }
        long n = submitted.incrementAndGet();
        queue.add(work);
        LockSupport.unpark(thread);
        if (n - finished.get() > HIGH_WATER && Thread.currentThread() != thread) {
            // On the host backend the "device" shares the CPU with the caller: a caller that
            // races ahead enqueuing steals the cores the kernels need. Let the queue drain, but
            // only briefly: one thread may be feeding several communicators whose kernels need
            // each other's next launch.
            // The stream thread is running them: helping would only make two threads take turns.
            awaitFinished(n - LOW_WATER, THROTTLE_NANOS, false, System.nanoTime());
        }
    }

    /**
     * @param seg a buffer of a launch
     * @return whether the stream's thread may touch it (not confined to another thread)
     */
    public boolean reaches(MemorySegment seg) {
        return seg.isAccessibleBy(thread);
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
        // Spin for the next launch only after running one: woken for a launch a caller ran
        // itself, the thread goes back to sleep at once instead of taking a core for nothing.
        boolean ran = false;
        while (!closed || !queue.isEmpty()) {
            if (!queue.isEmpty() && runNext()) {
                idleSince = 0;
                ran = true;
                continue;
            }
            if (exec.isLocked()) {
                // A caller is running the launches and hands the rest back when it stops
                // (handOff): spinning here would only take a core from the peers it waits for.
                ran = false;
                idleSince = 0;
                LockSupport.parkNanos(this, 10_000_000);
                continue;
            }
            if (idleSince == 0) {
                idleSince = System.nanoTime();
            }
            if (ran && System.nanoTime() - idleSince < SPIN_NANOS) {
                Thread.onSpinWait();
            } else {
                ran = false;
                idleSince = 0;
                LockSupport.parkNanos(this, 10_000_000);
            }
        }
    }

    /**
     * Runs the next queued launch on this thread (the stream's, or one waiting for the stream),
     * unless another thread is running one.
     *
     * @return whether a launch ran
     */
    boolean runNext() {
        if (died != null || !mayRunHere() || !exec.tryLock()) {
            return false;
        }
        Runnable r = null;
        try {
            r = queue.poll();
            if (r == null) {
                return false;
            }
            run(r);
            return true;
        } finally {
            exec.unlock();
            if (r != null) {
                finished(true);
            }
        }
    }

    /**
     * Whether the calling thread may run launches: not a {@link ForkJoinPool} worker. A launch
     * waits for its peers; a pool worker waiting inside it is not seen as blocked by its pool,
     * which then starts no other worker, and the peers' tasks queued in that pool (ranks run
     * with {@code CompletableFuture.runAsync} on a small machine's common pool) never run. Such a
     * worker waits as before, where the pool compensates for it.
     */
    private boolean mayRunHere() {
        Thread me = Thread.currentThread();
        return me == thread || !(me instanceof ForkJoinWorkerThread);
    }

    /**
     * A caller that ran launches and stops now hands what is queued behind them to the stream
     * thread (woken once, not after every launch it ran).
     */
    void handOff() {
        if (Thread.currentThread() != thread && !queue.isEmpty()) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Lets the calling thread run a blocking call's launch itself, as the stream's next launch, if
     * the stream is idle: nothing queued or running. A launch submitted meanwhile from another
     * thread runs after it. The caller runs the launch (it reports its own outcome) and then calls
     * {@link #exitInline()} in a {@code finally}: no task object, no completion, no hand-off.
     *
     * @param onStall told if a wait gives up on the launch (see {@link Launch})
     * @return whether the caller runs it now; if not, nothing ran and the caller submits it
     */
    public boolean enterIfIdle(Stalled onStall) {
        if (closed || died != null || !mayRunHere() || !exec.tryLock()) {
            return false;
        }
        if (finished.get() != submitted.get()) {
            exec.unlock();
            return false;
        }
        lastProgress = UNSTAMPED;
        submitted.incrementAndGet();
        running = onStall;
        runner = Thread.currentThread();
        return true;
    }

    /** Ends a launch {@link #enterIfIdle} let the calling thread run; hands queued work back to the stream. */
    public void exitInline() {
        running = null;
        runner = null;
        exec.unlock();
        finished(false);
        handOff();
    }

    /** Runs one launch, holding {@link #exec}. */
    private void run(Runnable r) {
        running = r instanceof Launch l ? l : null;
        runner = Thread.currentThread();
        try {
            r.run();
        } catch (RuntimeException e) {
            // Launches report their own failures; this keeps the thread alive if one cannot.
            recordError(NcclException.of(Result.INTERNAL_ERROR, "stream task failed: " + e, null, e));
        } catch (Error e) {
            // Out of memory, stack overflow: not the stream's to survive. Waiters fail at once.
            if (Thread.currentThread() == thread) {
                died = e;
            }
            recordError(NcclException.of(Result.INTERNAL_ERROR, "stream " + thread.getName() + " died: " + e,
                    null, e));
            throw e;
        } finally {
            running = null;
            runner = null;
        }
    }

    /**
     * Counts a launch finished, once {@link #exec} is free again (so that a waiter it releases
     * finds the stream idle), and wakes the waiters whose target it reaches.
     *
     * @param stamp whether to stamp {@link #lastProgress} (not for an inline launch: no clock read)
     */
    private void finished(boolean stamp) {
        if (stamp) {
            lastProgress = System.nanoTime();
        }
        long f = finished.incrementAndGet();
        if (!waiters.isEmpty()) {
            waiters.forEach((t, target) -> {
                if (target <= f) {
                    LockSupport.unpark(t);
                }
            });
        }
    }

    @Override
    public void synchronize() {
        long target = submitted.get();
        if (!awaitFinished(target, Long.MAX_VALUE, true, System.nanoTime())) {
            throw stalled();
        }
        NcclException e = error;
        if (e != null) {
            error = null;
            throw HostCompletion.rethrow(e);
        }
    }

    /**
     * Waits until {@code target} tasks have finished, at most {@code maxNanos}: runs queued
     * launches on the calling thread while it can ({@code runHere}), else parks (rather than
     * spins: on a small machine a spinning waiter takes the core the stream and the peers need).
     * The stream thread unparks a waiter once its target is reached.
     *
     * @param runHere whether the caller runs queued launches itself
     * @param since   when the caller began to wait: {@code maxNanos} counts from there, and so
     *                does the stall bound at the earliest (see {@link #lastProgress})
     * @return {@code false} if the stream stalled (see {@link #stalled()}) before the target;
     *         {@code true} once reached or when {@code maxNanos} ran out
     * @throws NcclException with INTERNAL_ERROR if the stream thread died
     */
    boolean awaitFinished(long target, long maxNanos, boolean runHere, long since) {
        Thread me = Thread.currentThread();
        waiters.put(me, target);
        try {
            while (finished.get() < target) {
                NcclException dead = deathError();
                if (dead != null) {
                    throw dead;
                }
                // Run what is waited for rather than sleep until the stream thread has: no wake-ups.
                if (runHere && me != thread && runNext()) {
                    continue;
                }
                long now = System.nanoTime();
                if (now - progressSince(since) > stallNanos && finished.get() < target) {
                    return false;
                }
                long left = maxNanos - (now - since);
                if (left <= 0) {
                    return true;
                }
                LockSupport.parkNanos(this, Math.min(left, 100_000_000));
            }
            return true;
        } finally {
            waiters.remove(me);
            handOff();
        }
    }

    /** @return when progress was last seen: the stamp, or {@code since} for an unstamped inline launch */
    private long progressSince(long since) {
        long p = lastProgress;
        return p == UNSTAMPED ? since : p;
    }

    /** @return INTERNAL_ERROR if the stream thread has ended while not closed (an Error), else {@code null} */
    NcclException deathError() {
        if (died == null && (closed || thread.isAlive())) {
            return null;
        }
        return NcclException.of(Result.INTERNAL_ERROR, "stream thread " + thread.getName() + " died"
                + (died == null ? "" : ": " + died), null, died);
    }

    /**
     * @return the error of a wait that gave up on a stream that finishes nothing; the launch it is
     *     stuck in hears it first ({@link Launch#stalled})
     */
    NcclException stalled() {
        Thread t = runner;
        StackTraceElement[] at = (t != null ? t : thread).getStackTrace();
        // The innermost frame says how it waits, the innermost of ours what for.
        String ours = Arrays.stream(at).filter(f -> f.getClassName().startsWith("org.nccl4j.")).findFirst()
                .map(f -> f == at[0] ? "" : ", in " + f).orElse("");
        String who = t == null || t == thread ? "its thread" : "thread " + t.getName() + ", running it,";
        NcclException e = NcclException.of(Result.TIMEOUT, "stream " + thread.getName() + " finished no operation for "
                        + stallNanos / 1_000_000 + " ms" + (at.length == 0 ? "" : " (" + who + " is at " + at[0] + ours + ")"),
                "an operation is stuck outside nccl4j's own waits (a net plugin call?); abort the communicator; "
                        + "raise NCCL4J_OP_TIMEOUT_MS if single operations take longer");
        Stalled l = running;
        if (l != null) {
            l.stalled(e);
        }
        return e;
    }

    /** @return the number of launches submitted so far (a completion's position in the stream) */
    long submittedCount() {
        return submitted.get();
    }

    @Override
    public boolean query() {
        return finished.get() >= submitted.get();
    }

    /**
     * Lets the queued launches finish (each bounded by its own deadlines), then ends the thread.
     *
     * @return whether the thread ended; if not (it stalled, see {@link #stalled()}), memory its
     *         launches use must not be freed
     */
    public boolean stop() {
        closed = true;
        LockSupport.unpark(thread);
        long start = System.nanoTime();
        while (thread.isAlive()) {
            if (!query() && System.nanoTime() - progressSince(start) > stallNanos) {
                return Threads.join(thread, 1); // logs where the thread is stuck
            }
            try {
                thread.join(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return !thread.isAlive();
            }
        }
        return true;
    }

    /**
     * Waits at most {@code millis} for the thread to end (after an abort, when its waits end at
     * once).
     *
     * @param millis the bound
     * @return whether it ended
     */
    public boolean stop(long millis) {
        closed = true;
        LockSupport.unpark(thread);
        return Threads.join(thread, millis);
    }

    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return thread.getName();
    }

    /**
     * A launch that is told when a wait gives up on it (its stream finished nothing for the op
     * deadline plus {@link #GRACE_NANOS}): its communicator then fails, so that the launch's own
     * waits, which observe the abort flag, end, and a destroy can free what it held.
     */
    public interface Launch extends Runnable, Stalled {
    }

    /** Hears that a wait gave up on a launch (see {@link Launch}). */
    @FunctionalInterface
    public interface Stalled {
        /** @param e the TIMEOUT the giving-up wait throws */
        void stalled(NcclException e);
    }
}
