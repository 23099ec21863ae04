package org.nccl4j.core.kernel;

import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.transport.Conn;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.Futex;

/**
 * How a kernel waits for a peer's counter: spins first (small messages are decided by spinning,
 * as the peer measurements show), then yields (oversubscribed ranks pass the core to each
 * other), then sleeps on the counter until the peer's publish wakes it ({@link ConnMem#sleep}:
 * a futex, across processes too). Sleeping comes last because a wake-up costs 30-50 µs on a
 * virtual machine, more than a small collective: measured, sleeping after 50 µs of spinning made
 * 8 B and 16 KiB AllReduces (2 and 4 rank JVMs on 2 cores) slower than yielding. Waits that
 * cannot sleep on one counter (several point-to-point lanes) park for short times instead.
 * While spinning or yielding every thousand rounds, while sleeping every sleep (at most a
 * millisecond), it checks the abort flag, the communicator's async error and the progress
 * deadline, and now and then whether the peer process is still there: a wait never hangs.
 */
public final class Waiter {
    /** Spin this long: a peer that is running answers within a few microseconds. */
    private static final long SPIN_NANOS = 200_000;
    /** With more ranks than cores the peer is likely waiting for this core: yield almost at once. */
    private static final long OVERSUBSCRIBED_SPIN_NANOS = 2_000;
    /** Then yield until this long: on an oversubscribed machine the peer may need this core. */
    private static final long YIELD_NANOS = 5_000_000;
    /** Rounds always spun, before the clock is read. */
    private static final int FREE_ROUNDS = 64;
    /** Spinning rounds between checks. */
    private static final int SPIN_CHECK_MASK = 1023;
    /**
     * Spinning rounds between looks at the peer process (a few milliseconds): a look reads
     * {@code /proc}, ~20 µs during which data that arrives waits, about as long as the 1,024
     * rounds between checks, so not every check makes one.
     */
    private static final int SPIN_PEER_CHECK_MASK = (1 << 16) - 1;
    /** Sleeps between looks at the peer process ({@code /proc} reads). */
    private static final int PEER_CHECK_MASK = 63;
    /**
     * Threads a rank keeps busy when its data comes through a proxy: the kernel's, the proxy's
     * and, where the net uses one (the Socket net on NIO or with data sockets), its event loop.
     * Waiting on such a connection counts the host as
     * oversubscribed once the ranks need more threads than there are cores: the data comes from
     * this process's own proxy and net threads, which a spinning kernel keeps off the core
     * (measured: 2 rank JVMs over the Socket net on 2 cores, ~700 µs an AllReduce of 8 B-32 KiB
     * spinning, 220-360 µs yielding at once).
     */
    private static final int THREADS_PER_NET_RANK = 3;

    private final AbortFlag abort;
    private final Supplier<NcclException> asyncError;
    private final long timeoutNanos;
    private final long spinNanos;
    private final long proxySpinNanos;
    private final int localRanks;
    private final int cores;

    /**
     * @param abort        the communicator's abort flag
     * @param asyncError   the communicator's async error, or {@code null}
     * @param timeoutNanos how long a wait may see no progress before it fails with TIMEOUT
     * @param localRanks   ranks on this host
     * @param cores        cores of this host
     */
    public Waiter(AbortFlag abort, Supplier<NcclException> asyncError, long timeoutNanos, int localRanks, int cores) {
        this.abort = abort;
        this.asyncError = asyncError;
        this.timeoutNanos = timeoutNanos;
        this.localRanks = localRanks;
        this.cores = cores;
        this.spinNanos = localRanks > cores ? OVERSUBSCRIBED_SPIN_NANOS : SPIN_NANOS;
        this.proxySpinNanos = netOversubscribed(localRanks, cores) ? OVERSUBSCRIBED_SPIN_NANOS : spinNanos;
    }

    /**
     * @param localRanks ranks on this host
     * @param cores      cores of this host
     * @return whether ranks whose data comes through a proxy need more threads than there are
     *     cores ({@code THREADS_PER_NET_RANK} each): their waits then yield almost at once, and the
     *     proxy thread leaves its rounds to the kernels that help ({@link org.nccl4j.core.proxy.Proxy})
     */
    public static boolean netOversubscribed(int localRanks, int cores) {
        return (long) localRanks * THREADS_PER_NET_RANK > cores;
    }

    /**
     * How long an idle channel thread polls for its next call: as configured while every local
     * rank's channel threads have a core each, else not at all (a poller would take the core
     * a peer's kernel needs).
     *
     * @param threadsPerRank threads each local rank runs channels on
     * @param configured     {@code NCCL4J_CHANNEL_SPIN_US}, in ns
     * @return the polling time, in ns
     */
    public long channelSpinNanos(int threadsPerRank, long configured) {
        return (long) localRanks * threadsPerRank > cores ? 0 : configured;
    }

    /**
     * Waits until the counter the connection waits on reaches {@code target}.
     *
     * @param c      the connection
     * @param target the counter value needed
     * @param what   what is awaited, for the error ("data", "credit")
     * @param net    a connection through the network proxy whose rounds the waiting thread runs
     *     (it is {@link Conn#helping} for the whole call), or {@code null}
     * @return the counter value seen
     */
    public long await(Conn c, long target, String what, Conn net) {
        long v = ConnMem.counter(c.waitHeader());
        if (v >= target) {
            return v;
        }
        long start = System.nanoTime();
        for (int round = 1; ; round++) {
            if (net != null) {
                net.help();
            }
            v = ConnMem.counter(c.waitHeader());
            if (v >= target) {
                return v;
            }
            backOff(c, target, what, round, start, net);
        }
    }

    /**
     * One round of a wait that polls its own condition (LL flags) which the peer follows by
     * publishing the connection's counter: runs a round of the network proxy's if the thread
     * helps one, then spins, or sleeps until the counter reaches {@code target}, and checks as
     * {@link #await} does.
     *
     * @param c      the connection
     * @param target the counter value that comes with the awaited data
     * @param what   what is awaited, for the error
     * @param round  rounds waited so far, from 1
     * @param start  when the wait began ({@link System#nanoTime()})
     * @param net    as for {@link #await}
     */
    public void idle(Conn c, long target, String what, int round, long start, Conn net) {
        if (net != null) {
            net.help();
        }
        backOff(c, target, what, round, start, net);
    }

    /** One round of backing off: spin or yield, or sleep on the counter (leaving {@code net}'s rounds to its proxy). */
    private void backOff(Conn c, long target, String what, int round, long start, Conn net) {
        // With more threads than cores, a wait on the network yields almost at once.
        if (backedOff(round, start, net != null ? proxySpinNanos : spinNanos)) {
            if ((round & SPIN_CHECK_MASK) == 0) {
                check(c, what, start, (round & SPIN_PEER_CHECK_MASK) == 0);
            }
            return;
        }
        // Asleep it cannot help: the proxy thread moves the steps meanwhile.
        if (net != null) {
            net.helping(false);
        }
        try {
            ConnMem.sleep(c.waitHeader(), target, Futex.MAX_SLEEP_NANOS);
        } finally {
            if (net != null) {
                net.helping(true);
            }
        }
        check(c, what, start, (round & PEER_CHECK_MASK) == 0);
    }

    /** Spins or yields while the wait is young enough; false once it is time to sleep. */
    private static boolean backedOff(int round, long start, long spinNanos) {
        if (round < FREE_ROUNDS) {
            Thread.onSpinWait();
            return true;
        }
        long waited = System.nanoTime() - start;
        if (waited >= YIELD_NANOS) {
            return false;
        }
        if (waited < spinNanos) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
        return true;
    }

    /**
     * Backs off in a wait on several connections at once: spins, yields, then parks for short
     * times (50 µs at least: the timer slack). Such waits call {@link #check} themselves.
     *
     * @param round rounds waited so far, from 1
     * @param start when the wait began ({@link System#nanoTime()})
     */
    public void pause(int round, long start) {
        if (!backedOff(round, start, spinNanos)) {
            LockSupport.parkNanos(50_000);
        }
    }

    /**
     * Fails the wait if the communicator was aborted, hit an async error, lost the peer, or
     * made no progress for the timeout.
     *
     * @param c     the connection waited on
     * @param what  what is awaited
     * @param start when the wait started ({@link System#nanoTime()})
     */
    public void check(Conn c, String what, long start) {
        check(c, what, start, true);
    }

    private void check(Conn c, String what, long start, boolean peer) {
        // The async error first: a failure elsewhere sets it and then the abort flag, and its
        // kind (REMOTE_ERROR, TIMEOUT, ...) is the true one.
        NcclException async = asyncError == null ? null : asyncError.get();
        if (async != null) {
            throw NcclException.of(async.result(), "waiting for " + what + " on " + c + ": " + async.detail(),
                    async.hint(), async);
        }
        if (abort.isSet()) {
            abort.check("waiting for " + what + " on " + c);
        }
        if (c.peerFailed()) {
            throw NcclException.of(Result.REMOTE_ERROR, "waiting for " + what + " on " + c
                    + ": the peer's communicator failed or was aborted", "a peer failed (its log says why); "
                    + "abort this communicator, or shrink it to the ranks that are left");
        }
        String gone = peer ? c.peerCheck().problem() : null;
        if (gone != null) {
            throw NcclException.of(Result.REMOTE_ERROR, "waiting for " + what + " on " + c + ": " + gone,
                    "a peer exited; abort the communicator and start a new one");
        }
        if (System.nanoTime() - start > timeoutNanos) {
            throw NcclException.of(Result.TIMEOUT, "no " + what + " on " + c + " for " + timeoutNanos / 1_000_000 + " ms",
                    "a peer is stuck, dead or calling a different collective; raise NCCL4J_OP_TIMEOUT_MS if it is only slow");
        }
    }
}
