package org.nccl4j.core.device;

import java.util.List;
import org.nccl4j.Completion;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
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
     * Checks that a group's operations can be launched on {@code stream} by
     * {@link #launchGroup}, before any communicator of the group launches anything (a refusal here
     * fails the whole group). This default refuses sends and receives: a backend that runs them
     * overrides it.
     *
     * @param colls the group's collectives, in call order
     * @param p2ps  its sends and receives, in call order
     * @param stream the one stream of this communicator in the group
     * @throws NcclException INVALID_USAGE or INVALID_ARGUMENT when the group cannot run here
     */
    default void checkGroup(List<DeviceCollOp> colls, List<DeviceP2pOp> p2ps, Stream stream) {
        if (!p2ps.isEmpty()) {
            throw NcclException.of(Result.INVALID_USAGE, "send/recv on device memory is not supported by this backend",
                    "use a backend that runs them (cuda) or MemorySegments on the host backend");
        }
    }

    /**
     * Enqueues a group checked by {@link #checkGroup}: the collectives in call order, then the
     * sends and receives together (the host engine's order), and returns at once. This default
     * launches the collectives one by one.
     *
     * @param colls  the collectives
     * @param p2ps   the sends and receives
     * @param stream where to enqueue
     * @return a completion that finishes after all of them, or {@code null} for an empty group
     */
    default Completion launchGroup(List<DeviceCollOp> colls, List<DeviceP2pOp> p2ps, Stream stream) {
        Completion last = null;
        for (DeviceCollOp op : colls) {
            last = launch(op, stream);
        }
        return last;
    }

    /**
     * Waits for the enqueued work (bounded by the operation deadline; after an abort the kernels
     * see the abort flag and end), then frees device memory; idempotent.
     */
    @Override
    void close();

    /**
     * @return after {@link #close}: whether nothing this backend ran may still touch the memory
     *     the communicator owns (its connection arena, freed only then); a backend whose work
     *     reaches only memory it frees itself answers true
     */
    default boolean quiescent() {
        return true;
    }
}
