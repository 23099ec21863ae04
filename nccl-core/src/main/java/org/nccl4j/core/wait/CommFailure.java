package org.nccl4j.core.wait;

import java.util.concurrent.atomic.AtomicReference;
import org.nccl4j.NcclException;
import org.nccl4j.core.debug.Log;

/**
 * A communicator's first failure ({@code comm->asyncResult}): whoever fails (a launch, a worker
 * channel, the proxy) records it here with its true kind, logged at WARN, and the abort flag is
 * then set so every other wait of the communicator ends at once instead of at its timeout.
 */
public final class CommFailure {
    private final AtomicReference<NcclException> first = new AtomicReference<>();
    private final AbortFlag abort;

    /** @param abort the communicator's abort flag */
    public CommFailure(AbortFlag abort) {
        this.abort = abort;
    }

    /** @return the first failure, or {@code null} */
    public NcclException get() {
        return first.get();
    }

    /**
     * Records a failure (the first one sticks) and aborts the communicator.
     *
     * @param where who failed, for the log and the abort reason ("rank 1 channel 2")
     * @param e     the failure
     */
    public void fail(String where, NcclException e) {
        if (first.compareAndSet(null, e)) {
            Log.warn("%s failed: %s", where, e.getMessage());
        }
        abort.set(where + " failed: " + e.getMessage());
    }
}
