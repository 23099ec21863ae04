package org.nccl4j.core.kernel;

import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.transport.Conn;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.wait.AbortFlag;

/**
 * How a kernel waits for a peer's counter: spins first (small messages are decided by spinning,
 * as the peer measurements show), then yields, then parks for short, growing times so
 * oversubscribed ranks leave the CPU to each other. Every few hundred rounds it checks the abort
 * flag, the communicator's async error, the peer and the progress deadline: a wait never hangs.
 */
public final class Waiter {
    /** Spin this long: a peer that is running answers within a few microseconds. */
    private static final long SPIN_NANOS = 200_000;
    /** With more ranks than cores the peer is likely waiting for this core: yield almost at once. */
    private static final long OVERSUBSCRIBED_SPIN_NANOS = 2_000;
    /** Then yield this long: on an oversubscribed machine the peer may need this core. */
    private static final long YIELD_NANOS = 5_000_000;

    private final AbortFlag abort;
    private final Supplier<NcclException> asyncError;
    private final long timeoutNanos;
    private final long spinNanos;

    /**
     * @param abort        the communicator's abort flag
     * @param asyncError   the communicator's async error, or {@code null}
     * @param timeoutNanos how long a wait may see no progress before it fails with TIMEOUT
     * @param oversubscribed whether this host runs more ranks than it has cores
     */
    public Waiter(AbortFlag abort, Supplier<NcclException> asyncError, long timeoutNanos, boolean oversubscribed) {
        this.abort = abort;
        this.asyncError = asyncError;
        this.timeoutNanos = timeoutNanos;
        this.spinNanos = oversubscribed ? OVERSUBSCRIBED_SPIN_NANOS : SPIN_NANOS;
    }

    /**
     * Waits until the counter the connection waits on reaches {@code target}.
     *
     * @param c      the connection
     * @param target the counter value needed
     * @param what   what is awaited, for the error ("data", "credit")
     * @return the counter value seen
     */
    public long await(Conn c, long target, String what) {
        long v = ConnMem.counter(c.waitHeader());
        if (v >= target) {
            return v;
        }
        long start = System.nanoTime();
        for (int round = 1; ; round++) {
            v = ConnMem.counter(c.waitHeader());
            if (v >= target) {
                return v;
            }
            pause(round, start);
            if ((round & 1023) == 0) {
                check(c, what, start);
            }
        }
    }

    /**
     * Backs off according to how long a caller has waited: spin, then yield, then park. Parking
     * comes last because on Linux a park lasts at least the timer slack (50 us), far longer
     * than a small collective.
     *
     * @param round rounds waited so far, from 1
     * @param start when the wait began ({@link System#nanoTime()})
     */
    public void pause(int round, long start) {
        if (round < 64) {
            Thread.onSpinWait();
            return;
        }
        long waited = System.nanoTime() - start;
        if (waited < spinNanos) {
            Thread.onSpinWait();
        } else if (waited < YIELD_NANOS) {
            Thread.yield();
        } else {
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
        // The async error first: a failure elsewhere sets it and then the abort flag, and its
        // kind (REMOTE_ERROR, TIMEOUT, ...) is the true one.
        NcclException async = asyncError == null ? null : asyncError.get();
        if (async != null) {
            throw NcclException.of(async.result(), "waiting for " + what + " on " + c + ": " + async.detail(),
                    async.hint(), async);
        }
        abort.check("waiting for " + what + " on " + c);
        String gone = c.peerCheck().problem();
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
