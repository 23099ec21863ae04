package org.nccl4j;

/**
 * An ordered queue of operations, as a CUDA stream: operations enqueued on one stream run one
 * after another in enqueue order. Collectives return at once; {@link #synchronize()} waits for
 * everything enqueued so far.
 *
 * <p>On the host backend a communicator runs one operation at a time whatever the stream (its
 * channels carry one operation, as NCCL's do), so streams of one communicator only order the
 * caller's work; streams of different communicators do run at the same time.
 *
 * <p>Create streams with {@link Communicator#createStream()}; each communicator also has a
 * {@link Communicator#defaultStream() default stream} that the blocking conveniences use.
 */
public interface Stream extends AutoCloseable {
    /**
     * Waits until every operation enqueued so far has finished.
     *
     * @throws NcclException the first failure of an operation on this stream
     */
    void synchronize();

    /** @return whether every operation enqueued so far has finished ({@code cudaStreamQuery}) */
    boolean query();

    /** @return the native stream handle ({@code cudaStream_t}), or 0 for a host backend's stream */
    default long handle() {
        return 0;
    }

    /** Waits for the enqueued operations (bounded by their own deadlines), then releases the stream. */
    @Override
    void close();
}
