package org.nccl4j.core.kernel;

import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.transport.Conn;
import org.nccl4j.core.transport.ConnMem;
import org.nccl4j.core.wait.AbortFlag;

/**
 * How a kernel waits for a peer's counter: spins first (small messages are decided by spinning,
 * as the peer measurements show), then yields, then parks for short, growing times so
 * oversubscribed ranks leave the CPU to each other. Every few hundred rounds it checks the abort
 * flag, the communicator's async error, the peer and the progress deadline: a wait never hangs.
 */
public final class Waiter {
    private static final int SPINS = 2000;
    private static final int YIELDS = 200;

    private final AbortFlag abort;
    private final Supplier<NcclException> asyncError;
    private final long timeoutNanos;

    /**
     * @param abort        the communicator's abort flag
     * @param asyncError   the communicator's async error, or {@code null}
     * @param timeoutNanos how long a wait may see no progress before it fails with TIMEOUT
     */
    public Waiter(AbortFlag abort, Supplier<NcclException> asyncError, long timeoutNanos) {
        this.abort = abort;
        this.asyncError = asyncError;
        this.timeoutNanos = timeoutNanos;
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
        long start = 0;
        for (int round = 1; ; round++) {
            v = ConnMem.counter(c.waitHeader());
            if (v >= target) {
                return v;
            }
            pause(round);
            if ((round & 255) == 0) {
                if (start == 0) {
                    start = System.nanoTime();
                }
                check(c, what, start);
            }
        }
    }

    /**
     * Backs off according to how long a caller has waited.
     *
     * @param round rounds waited so far, from 1
     */
    public static void pause(int round) {
        if (round < SPINS) {
            Thread.onSpinWait();
        } else if (round < SPINS + YIELDS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(Math.min(50_000, 1000L << Math.min((round - SPINS - YIELDS) / 64, 6)));
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
        abort.check("waiting for " + what + " on " + c);
        NcclException async = asyncError == null ? null : asyncError.get();
        if (async != null) {
            throw NcclException.of(async.result(), "waiting for " + what + " on " + c + ": " + async.detail(),
                    async.hint(), async);
        }
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
