package org.nccl4j;

/**
 * One rank's handle on a communicator ({@code ncclComm_t}).
 *
 * <p>Created by {@link Nccl#commInitRank}, {@link Nccl#commInitAll} or
 * {@link Nccl#commInitFromEnv}. {@link #close()} destroys it ({@code ncclCommDestroy});
 * {@link #abort()} tears it down at once from any thread ({@code ncclCommAbort}). Both are
 * bounded in time and idempotent.
 */
public interface Communicator extends AutoCloseable {
    /** @return the number of ranks ({@code ncclCommCount}) */
    int count();

    /** @return this rank's index, 0 to {@code count()-1} ({@code ncclCommUserRank}) */
    int userRank();

    /** @return the device this rank runs on ({@code ncclCommCuDevice}) */
    Device device();

    /** @return the number of distinct hosts among the ranks */
    int nodeCount();

    /** @return the name of the network plugin chosen by initNet, e.g. {@code "Socket"} */
    String netName();

    /**
     * @return {@link Result#SUCCESS}, or the error a background thread of this communicator hit
     *     ({@code ncclCommGetAsyncError})
     */
    Result asyncError();

    /**
     * Marks the communicator aborted and releases its resources without waiting for peers
     * ({@code ncclCommAbort}). Every blocked call on it returns with an error. Callable from any
     * thread, any number of times; bounded in time.
     */
    void abort();

    /**
     * Destroys the communicator ({@code ncclCommDestroy}): waits, up to the configured deadline,
     * for outstanding work, then frees everything. Idempotent.
     */
    @Override
    void close();
}
