package org.nccl4j.core.wait;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
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
    /** Listeners not yet called; guarded by itself. */
    private final List<Consumer<? super NcclException>> listeners = new ArrayList<>();
    /** Names the threads that call listeners, e.g. "rank 1". */
    private final String name;

    /**
     * @param abort the communicator's abort flag
     * @param name  whose failures these are, e.g. "rank 1"
     */
    public CommFailure(AbortFlag abort, String name) {
        this.abort = abort;
        this.name = name;
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
            List<Consumer<? super NcclException>> now;
            synchronized (listeners) {
                now = List.copyOf(listeners);
                listeners.clear();
            }
            now.forEach(l -> deliver(l, e));
        }
        abort.set(where + " failed: " + e.getMessage(), e.result());
    }

    /**
     * Calls {@code listener} once with the first failure, on a thread of its own (the failing
     * thread may be one that the listener's abort or shrink must stop and join); at once if the
     * failure already happened.
     *
     * @param listener what to call
     */
    public void listen(Consumer<? super NcclException> listener) {
        NcclException e;
        synchronized (listeners) {
            e = first.get();
            if (e == null) {
                listeners.add(listener);
                return;
            }
        }
        deliver(listener, e);
    }

    /** Drops the listeners not yet called: the communicator was closed without a failure. */
    public void clearListeners() {
        synchronized (listeners) {
            listeners.clear();
        }
    }

    private void deliver(Consumer<? super NcclException> listener, NcclException e) {
        Thread.ofPlatform().daemon().name("nccl4j async error " + name).start(() -> {
            try {
                listener.accept(e);
            } catch (RuntimeException t) {
                // An Error goes on to the thread's uncaught-exception handler.
                Log.warn("async error listener of %s threw %s", name, t);
            }
        });
    }
}
