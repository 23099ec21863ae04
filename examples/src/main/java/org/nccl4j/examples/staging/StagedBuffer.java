package org.nccl4j.examples.staging;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.nccl4j.Communicator;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.Nccl;

/**
 * Host memory and, for {@code --device cuda}, its twin in the communicator's device memory. The
 * examples compute inputs and check outputs in host memory (Java cannot read device memory);
 * {@link #push} and {@link #pull} move a range between the two. On the host backend there is no
 * twin and both are no-ops: the collectives run on {@link #host()} itself.
 */
public final class StagedBuffer implements AutoCloseable {
    private final MemorySegment host;
    private final DeviceBuffer device;

    private StagedBuffer(MemorySegment host, DeviceBuffer device) {
        this.host = host;
        this.device = device;
    }

    /**
     * @param comm     the communicator whose device memory holds the twin
     * @param onDevice whether to allocate the twin ({@code comm.allocate})
     * @param shared   on the host backend, whether the host memory comes from {@link Nccl#memAlloc}
     *                 (the rank JVMs of a host read it in place) rather than from the arena alone
     * @param bytes    size of each, at least 1
     * @param arena    owner of the host memory
     * @return the buffer; close it to free the device memory
     */
    public static StagedBuffer allocate(Communicator comm, boolean onDevice, boolean shared, long bytes, Arena arena) {
        MemorySegment h = shared && !onDevice ? Nccl.memAlloc(arena, bytes) : arena.allocate(bytes, 4096);
        return new StagedBuffer(h, onDevice ? comm.allocate(bytes) : null);
    }

    /** @return the host memory: the collectives' buffer on the host backend, the staging area on a device */
    public MemorySegment host() {
        return host;
    }

    /** @return whether the collectives run on a device twin */
    public boolean onDevice() {
        return device != null;
    }

    /**
     * @return the device twin
     * @throws IllegalStateException on a host buffer
     */
    public DeviceBuffer device() {
        if (device == null) {
            throw new IllegalStateException("a host buffer has no device memory");
        }
        return device;
    }

    /** Copies bytes {@code [offset, offset + bytes)} from host to device memory and waits. */
    public void push(long offset, long bytes) {
        if (device != null && bytes > 0) {
            device.slice(offset, bytes).copyFrom(host.asSlice(offset, bytes));
        }
    }

    /** Copies bytes {@code [offset, offset + bytes)} from device to host memory and waits. */
    public void pull(long offset, long bytes) {
        if (device != null && bytes > 0) {
            device.slice(offset, bytes).copyTo(host.asSlice(offset, bytes));
        }
    }

    /** Frees the device twin (the host memory belongs to its arena). */
    @Override
    public void close() {
        if (device != null) {
            device.close();
        }
    }
}
