package org.nccl4j.core.proxy;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
 *
 * <p>On host memory a kernel waiting for a network step also runs the proxy's round itself
 * when the proxy is not in one ({@link #help}): the step then moves on a thread that is running
 * anyway instead of waiting for the proxy thread to get a core (with more busy threads than
 * cores, each such hand-off cost a scheduling round). One round runs at a time. A kernel with
 * network connections is a helper for the whole of each primitive call, running a round in
 * every wait of it ({@link #helping}). Where the ranks' threads outnumber the cores, the proxy
 * thread then leaves the rounds to the helpers: it parks and a kernel's post does not wake it
 * (measured on 2 cores, Socket net: half the context switches, 2 KiB AllReduces twice as
 * fast), and the last helper to stop (its call ended, or it went to sleep on a futex) wakes it
 * if a send is still owed ({@link ProxyTask#owes}) or work was posted since the last round
 * began, so nothing posted waits for the kernel's next call. With a core of its own the thread
 * keeps running beside the helpers, woken by every post, only parking briefly while they hold
 * the rounds: it moves steps while the kernels reduce (measured on 16 cores with data sockets:
 * 16 MiB 13-50% slower when it left them to the kernels).
 */
public final class Proxy implements AutoCloseable {
    private static final long MAX_PARK_NANOS = 50_000;
    /** A loop round is short; a thread still running after this is stuck in a plugin call. */
    private static final long STOP_MILLIS = 5_000;
    /** How long a stop waits for the posted sends to leave (a live peer takes them in microseconds). */
    private static final long DRAIN_MILLIS = 5_000;

    private static final int ROUND_MOVED = 0;
    private static final int ROUND_IN_FLIGHT = 1;
    private static final int ROUND_IDLE = 2;
    /** Another thread holds the round. */
    private static final int ROUND_BUSY = 3;
    /**
     * How long the proxy thread parks while kernels run its rounds: the last helper to stop wakes
     * it when a send is owed, so this is a backstop (receives in flight wait for the kernel that
     * needs them, which helps while it waits).
     */
    private static final long HELPED_PARK_NANOS = 1_000_000;
    /** How long a thread with a core of its own parks while kernels help and requests are in flight. */
    private static final long SHARED_PARK_NANOS = 20_000;

    private final boolean leaveToHelpers;
    private final long helpedParkNanos;
    private final CopyOnWriteArrayList<ProxyTask> tasks = new CopyOnWriteArrayList<>();
    private final AbortFlag abort;
    private final Consumer<NcclException> onError;
    private final Thread thread;
    private volatile boolean stop;
    /** Held by whoever runs a round over the tasks: the proxy thread or a helping kernel. */
    private final AtomicBoolean busy = new AtomicBoolean();
    /** Kernels inside a call whose waits run rounds ({@link #helping}). */
    private final AtomicInteger helpers = new AtomicInteger();
    /**
     * Work a round may have to move: set by a kernel's post and by a round that left a send owed,
     * cleared as a round begins. The last helper to stop wakes the thread only if it is set (kept
     * only where the thread leaves rounds to helpers).
     */
    private final AtomicBoolean owed = new AtomicBoolean();
    /** Set once {@link #stop} took the round for good. */
    private boolean held;

    /**
     * @param rank    the rank, for the thread name
     * @param abort   the communicator's abort flag
     * @param onError receives the failure (the communicator's {@link org.nccl4j.core.wait.CommFailure})
     * @param leaveToHelpers whether the thread leaves the rounds to helping kernels, as where the
     *     ranks' threads outnumber the cores ({@link org.nccl4j.core.kernel.Waiter#netOversubscribed})
     */
    public Proxy(int rank, AbortFlag abort, Consumer<NcclException> onError, boolean leaveToHelpers) {
        this(rank, abort, onError, leaveToHelpers, HELPED_PARK_NANOS);
    }

    /** @param helpedParkNanos how long the thread parks while it leaves rounds to helpers (a test makes it long) */
    Proxy(int rank, AbortFlag abort, Consumer<NcclException> onError, boolean leaveToHelpers, long helpedParkNanos) {
        this.leaveToHelpers = leaveToHelpers;
        this.helpedParkNanos = helpedParkNanos;
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
    private void wake() {
        LockSupport.unpark(thread);
    }

    /**
     * A kernel posted work (a step to send, receives announced): wakes the thread unless kernels
     * are running its rounds, in which case the last of them to stop does ({@link #helping}).
     */
    public void posted() {
        if (!leaveToHelpers) {
            wake();
            return;
        }
        // Set before reading helpers, as helping(false) counts down before reading owed: one of
        // the two sees the other's write, so a post is never left with nobody to move it.
        owed.set(true);
        if (helpers.get() == 0) {
            wake();
        }
    }

    /**
     * A kernel starts or stops a stretch in which it runs rounds whenever it waits ({@link #help}).
     * Calls pair up on one thread. Where the thread leaves the rounds to helpers, a helper that
     * stops runs one more round (what it just posted leaves without a wake-up), and the last one
     * to stop wakes the thread if anything is still owed.
     *
     * @param on true as the stretch begins, false as it ends
     */
    public void helping(boolean on) {
        if (on) {
            helpers.incrementAndGet();
            return;
        }
        if (!leaveToHelpers) {
            helpers.decrementAndGet();
            return;
        }
        help();
        if (helpers.decrementAndGet() == 0 && owed.get()) {
            wake();
        }
    }

    private void run() {
        int idle = 0;
        while (!stop && !abort.isSet()) {
            int r = ROUND_BUSY;
            if (busy.compareAndSet(false, true)) {
                try {
                    if (stop || abort.isSet()) {
                        return;
                    }
                    r = round();
                } catch (Throwable t) {
                    // Reported while the round is still held: a helper's next round would test
                    // the request that failed again and report that instead of the cause.
                    failed(t);
                    return;
                } finally {
                    busy.set(false);
                }
            }
            if (r == ROUND_MOVED) {
                idle = 0;
            } else if (++idle < 64) {
                Thread.onSpinWait();
            } else if (helpers.get() > 0 && (leaveToHelpers || r != ROUND_IDLE)) {
                // Kernels run the rounds: left to them, or backed up with short parks.
                LockSupport.parkNanos(leaveToHelpers ? helpedParkNanos : SHARED_PARK_NANOS);
            } else if (idle < 128 || r != ROUND_IDLE) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(Math.min(MAX_PARK_NANOS, 1000L << Math.min(idle - 128, 6)));
            }
        }
    }

    /** One pass over the tasks; the caller holds {@link #busy}. */
    private int round() throws Exception {
        // Only read where the thread leaves rounds to helpers. An exchange, not a store: reading a
        // post's mark orders its published step before this round's reads.
        if (leaveToHelpers) {
            owed.getAndSet(false);
        }
        boolean moved = false;
        boolean inFlight = false;
        boolean owes = false;
        for (ProxyTask t : tasks) {
            moved |= t.progress();
            inFlight |= t.inFlight();
            owes |= leaveToHelpers && t.owes();
        }
        if (owes) {
            owed.set(true);
        }
        return moved ? ROUND_MOVED : inFlight ? ROUND_IN_FLIGHT : ROUND_IDLE;
    }

    /**
     * Runs one round over the tasks on the calling thread (a kernel waiting for a network step)
     * unless another thread is in one or the proxy is stopping. A failure is reported as the
     * proxy thread reports its own and aborts the communicator: the kernel's wait then ends
     * with it.
     */
    public void help() {
        if (stop || !busy.compareAndSet(false, true)) {
            return;
        }
        try {
            if (!stop && !abort.isSet()) {
                round();
            }
        } catch (Throwable t) {
            failed(t);
        } finally {
            busy.set(false);
        }
    }

    private void failed(Throwable t) {
        if (t instanceof NcclException e) {
            fail(e);
        } else if (t instanceof Exception e) {
            // Net failures arrive as NcclException (NetTask translates them); anything else is a
            // bug here or in a plugin, not a peer going away.
            fail(NcclException.of(Result.INTERNAL_ERROR, "proxy: " + e, "this is a bug in nccl4j or the net plugin; "
                    + "report it with the log", e));
        } else {
            fail(NcclException.of(Result.INTERNAL_ERROR, "proxy: " + t, null, t));
            if (t instanceof Error err) {
                throw err;
            }
        }
    }

    /** Reports the failure, then aborts so every wait on the communicator ends. */
    private void fail(NcclException e) {
        onError.accept(e);
        abort.set("NCCLproxy failed: " + e.getMessage(), e.result());
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
        if (!Threads.join(thread, STOP_MILLIS) || !holdRounds()) {
            return false;
        }
        for (ProxyTask t : tasks) {
            t.close();
        }
        tasks.clear();
        return true;
    }

    /**
     * Takes the round for good once stopping, so no helping kernel touches a task being closed.
     *
     * @return false if a helper kept it for {@code STOP_MILLIS} (stuck in a plugin call)
     */
    private boolean holdRounds() {
        if (held) {
            return true;
        }
        long deadline = System.nanoTime() + STOP_MILLIS * 1_000_000L;
        while (!busy.compareAndSet(false, true)) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            Thread.yield();
        }
        held = true;
        return true;
    }

    @Override
    public void close() {
        stop();
    }
}
