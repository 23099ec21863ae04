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

    /** @return whether abort was requested */
    public boolean isSet() {
        return set.get();
    }

    /** @return what caused the abort, or {@code null} while the flag is not set */
    public String reason() {
        return set.get() ? reason : null;
    }

    /**
     * Sets the flag (idempotent) and runs the registered actions once.
     *
     * @param why what caused the abort, for error messages
     */
    public void set(String why) {
        if (set.compareAndSet(false, true)) {
            reason = why;
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
     * @throws NcclException with {@link Result#INVALID_USAGE} if abort was requested
     */
    public void check(String what) {
        if (set.get()) {
            throw NcclException.of(Result.INVALID_USAGE, what + " interrupted: communicator " + reason,
                    "the communicator was aborted; create a new one");
        }
    }
}
