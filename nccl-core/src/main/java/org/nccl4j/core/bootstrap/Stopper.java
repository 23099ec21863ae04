package org.nccl4j.core.bootstrap;

import java.io.IOException;
import java.nio.channels.Selector;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.wait.AbortFlag;

/**
 * Whether the owner of some waits (a rank's bootstrap, the root) was told to stop, by its own
 * {@code abort()}/{@code close()} or by the communicator's {@link AbortFlag}. Waits call
 * {@link #check} between short selects; {@link #stop} also wakes every selector opened through
 * {@link #open()}, so blocked waits return at once.
 */
final class Stopper {
    private final AbortFlag flag;
    /** Holds the stop state and the selectors: this stopper, or the one {@link #ignoringFlag} came from. */
    private final Stopper owner;
    private final Set<Selector> selectors;
    private volatile String stopped;

    /** @param flag the communicator's abort flag, or {@code null} */
    Stopper(AbortFlag flag) {
        this.flag = flag;
        this.owner = this;
        this.selectors = ConcurrentHashMap.newKeySet();
    }

    private Stopper(Stopper owner) {
        this.flag = null;
        this.owner = owner;
        this.selectors = null;
    }

    /**
     * @return a stopper that stops when this one does but not on the communicator's abort flag:
     *     for the exchanges that rebuild a communicator after it failed (its flag is then set)
     */
    Stopper ignoringFlag() {
        return new Stopper(owner);
    }

    /**
     * @param what the operation that is waiting, for the message
     * @throws NcclException with {@link Result#INVALID_USAGE} if the owner was aborted or closed
     */
    void check(String what) {
        if (flag != null) {
            flag.check(what);
        }
        String s = owner.stopped;
        if (s != null) {
            throw NcclException.of(Result.INVALID_USAGE, what + " interrupted: " + s,
                    "the bootstrap was aborted or closed; create a new communicator");
        }
        if (Thread.currentThread().isInterrupted()) {
            // Selectors return at once for an interrupted thread: stop instead of spinning to the deadline.
            throw NcclException.of(Result.SYSTEM_ERROR, what + " interrupted: the waiting thread was interrupted",
                    "abort the communicator instead of interrupting its threads");
        }
    }

    /**
     * @return whether the owner itself was stopped (aborted or closed). The communicator's abort
     *     flag alone does not count: it ends waits ({@link #check}) but leaves the sockets to
     *     whoever closes the owner.
     */
    boolean isStopped() {
        return owner.stopped != null;
    }

    /**
     * @param why what stopped the owner, e.g. "bootstrap aborted"
     * @return whether this call stopped it (false if it already was)
     */
    boolean stop(String why) {
        if (owner != this) {
            return owner.stop(why);
        }
        boolean first;
        synchronized (this) {
            first = stopped == null;
            if (first) {
                stopped = why;
            }
        }
        for (Selector s : selectors) {
            s.wakeup();
        }
        return first;
    }

    Selector open() throws IOException {
        Selector s = Selector.open();
        owner.selectors.add(s);
        if (isStopped()) {
            s.wakeup();
        }
        return s;
    }

    void release(Selector s) {
        if (s != null) {
            owner.selectors.remove(s);
            try {
                s.close();
            } catch (IOException ignored) {
                // Nothing to do: the selector is gone either way.
            }
        }
    }
}
