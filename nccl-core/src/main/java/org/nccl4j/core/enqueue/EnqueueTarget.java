package org.nccl4j.core.enqueue;

import org.nccl4j.Device;
import org.nccl4j.NcclException;
import org.nccl4j.core.device.DeviceCollectives;
import org.nccl4j.core.kernel.Engine;

/**
 * What enqueue needs of a communicator (the fields of {@code ncclComm} that enqueue.cc reads).
 * The communicator calls enqueue for every operation; enqueue sees it only through this, so the
 * two packages do not depend on each other.
 */
public interface EnqueueTarget {
    /** @return this rank, readable after close (for messages) */
    int rank();

    /** @return the number of ranks; fails if the communicator was destroyed */
    int count();

    /** @return this rank; fails if the communicator was destroyed */
    int userRank();

    /** @throws NcclException if the communicator was destroyed, aborted, or hit an async error */
    void checkUsable();

    /** @return the host engine that runs the communicator's operations, or {@code null} on a device backend */
    Engine engine();

    /** @return the backend's collectives: a GPU backend's kernels, or the host engine ({@link HostCollectives}) */
    DeviceCollectives onDevice();

    /** @return this rank's device */
    Device device();

    /**
     * Records a launch failure as the communicator's async error and aborts its waits.
     *
     * @param where who failed, for the log
     * @param e     the failure
     */
    void fail(String where, NcclException e);
}
