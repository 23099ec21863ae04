package org.nccl4j.core.device;

import org.nccl4j.Completion;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.Stream;

/**
 * A communicator's collectives on its device: connected channels, device memory, streams and the
 * kernel launches. Made by {@link DeviceBackend#connect} during init; the communicator checks
 * every argument before it calls in.
 */
public interface DeviceCollectives extends AutoCloseable {
    /**
     * @param bytes at least 1
     * @return owned device memory
     */
    DeviceBuffer allocate(long bytes);

    /**
     * @param address device address allocated elsewhere
     * @param bytes   its length
     * @return a buffer that is never freed here
     * @throws org.nccl4j.NcclException INVALID_ARGUMENT if the address is not memory of this device
     */
    DeviceBuffer wrap(long address, long bytes);

    /** @return a new stream on this device */
    Stream createStream();

    /**
     * @param handle a native stream of this device's context
     * @return it, wrapped (never destroyed here)
     */
    Stream wrapStream(long handle);

    /** @return the stream the blocking conveniences use */
    Stream defaultStream();

    /**
     * Enqueues one collective on {@code stream} and returns at once.
     *
     * @param op     the checked collective
     * @param stream one of this communicator's streams (created or wrapped here)
     * @return its completion
     */
    Completion launch(DeviceCollOp op, Stream stream);

    /**
     * Waits for the enqueued work (bounded by the operation deadline; after an abort the kernels
     * see the abort flag and end), then frees device memory; idempotent.
     */
    @Override
    void close();
}
