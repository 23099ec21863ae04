package org.nccl4j.core.wait;

import org.nccl4j.core.debug.Log;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * A communicator's abort flag ({@code comm->abortFlag}). Every wait checks it; setting it also
 * runs registered actions (closing sockets, waking threads) so blocked calls return at once.
 */
public final class AbortFlag {
    private final AtomicBoolean set = new AtomicBoolean();
    private final CopyOnWriteArrayList<Runnable> onAbort = new CopyOnWriteArrayList<>();
    private volatile String reason = "aborted";
    /** What a wait the abort ends reports: the failure's kind, or INVALID_USAGE for a requested abort. */
    private volatile Result result = Result.INVALID_USAGE;

    /** @return whether abort was requested */
    public boolean isSet() {
        return set.get();
    }

    /** @return the result the waits it ends report ({@link #check}), or {@code null} while the flag is not set */
    public Result kind() {
        return set.get() ? result : null;
    }

    /** @return what caused the abort, or {@code null} while the flag is not set */
    public String reason() {
        return set.get() ? reason : null;
    }

    /**
     * Sets the flag (idempotent) and runs the registered actions once: a requested abort (waits
     * it ends report INVALID_USAGE, as NCCL's calls on an aborted communicator).
     *
     * @param why what caused the abort, for error messages
     */
    public void set(String why) {
        set(why, Result.INVALID_USAGE);
    }

    /**
     * Sets the flag (idempotent) because of a failure, and runs the registered actions once: the
     * waits it ends report the failure's kind (a peer's death stays REMOTE_ERROR wherever a
     * rank was waiting when it was found).
     *
     * @param why  what caused the abort, for error messages
     * @param kind the failure's result
     */
    public void set(String why, Result kind) {
        if (set.compareAndSet(false, true)) {
            reason = why;
            result = kind;
            for (Runnable r : onAbort) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    // Abort must finish every action even if one fails, and say which did.
                    Log.warn("abort action %s failed: %s", r, e);
                }
            }
        }
    }

    /**
     * @param action run when abort is requested, or at once if it already was
     */
    public void onAbort(Runnable action) {
        onAbort.add(action);
        if (set.get()) {
            action.run();
        }
    }

    /**
     * @param action an action registered with {@link #onAbort}, no longer needed
     */
    public void remove(Runnable action) {
        onAbort.remove(action);
    }

    /**
     * @param what the operation that was waiting
     * @throws NcclException if the flag is set: INVALID_USAGE for a requested abort, else the
     *     kind of the failure that set it
     */
    public void check(String what) {
        if (set.get()) {
            Result r = result;
            throw NcclException.of(r, what + " interrupted: communicator " + reason,
                    r == Result.INVALID_USAGE ? "the communicator was aborted; create a new one"
                            : "the communicator failed (its log says why); abort it, or shrink it to the ranks that are left");
        }
    }
}
