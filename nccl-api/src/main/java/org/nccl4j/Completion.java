package org.nccl4j;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** The outcome of one enqueued operation, like a recorded CUDA event. */
public interface Completion {
    /** @return whether the operation has finished, successfully or not */
    boolean isDone();

    /**
     * Waits for the operation.
     *
     * @throws NcclException if it failed
     */
    void await();

    /**
     * Waits for the operation at most {@code timeout}.
     *
     * @param timeout the longest wait
     * @return whether it finished in time
     * @throws NcclException if it failed
     */
    boolean await(Duration timeout);

    /** @return a future completed when the operation finishes (exceptionally with its {@link NcclException}) */
    CompletableFuture<Void> future();
}
