package org.nccl4j.core.device;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import org.nccl4j.Device;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.shm.SharedMemory;

/**
 * A {@link DeviceBuffer} of a host communicator: native host memory, so that a program written
 * against device buffers (allocate, copyFrom, collective, copyTo) runs unchanged on the host
 * backend. The host engine moves it as it moves a {@link MemorySegment}.
 */
public final class HostDeviceBuffer implements DeviceBuffer {
    private final Device device;
    private final MemorySegment segment;
    private final Arena owner;
    private final AtomicBoolean closed;

    private HostDeviceBuffer(Device device, MemorySegment segment, Arena owner, AtomicBoolean closed) {
        this.device = device;
        this.segment = segment;
        this.owner = owner;
        this.closed = closed;
    }

    /**
     * @param device the communicator's device
     * @param bytes  at least 1
     * @return zeroed host memory of its own, page-aligned and mappable by the host's other rank
     *     processes ({@link SharedMemory}: collectives read it in place), freed by {@link #close}
     */
    public static HostDeviceBuffer allocate(Device device, long bytes) {
        Arena arena = Arena.ofShared();
        return new HostDeviceBuffer(device, SharedMemory.allocate(arena, bytes), arena, new AtomicBoolean());
    }

    /**
     * @param device  the communicator's device
     * @param address native host memory allocated elsewhere
     * @param bytes   its length
     * @return a view of it (never freed here)
     */
    public static HostDeviceBuffer wrap(Device device, long address, long bytes) {
        return new HostDeviceBuffer(device, MemorySegment.ofAddress(address).reinterpret(bytes), null,
                new AtomicBoolean());
    }

    /**
     * @param device  the communicator's device
     * @param segment host memory of any kind (a MemorySegment call's argument)
     * @return a view of it (never freed here)
     */
    public static HostDeviceBuffer of(Device device, MemorySegment segment) {
        return new HostDeviceBuffer(device, segment, null, new AtomicBoolean());
    }

    /** @return the memory, for the host engine */
    public MemorySegment segment() {
        if (closed.get()) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "buffer " + this + " was freed", null);
        }
        return segment;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public long address() {
        return segment.address();
    }

    @Override
    public long byteSize() {
        return segment.byteSize();
    }

    @Override
    public DeviceBuffer slice(long offset, long length) {
        long bytes = segment.byteSize();
        if (offset < 0 || length < 0 || offset > bytes || length > bytes - offset) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "slice [" + offset + ", +" + length + ") of a " + bytes
                    + "-byte buffer", "keep the range inside the buffer");
        }
        return new HostDeviceBuffer(device, segment.asSlice(offset, length), null, closed);
    }

    @Override
    public void copyFrom(MemorySegment src) {
        segment().copyFrom(checked(src, "source"));
    }

    @Override
    public void copyTo(MemorySegment dst) {
        checked(dst, "destination").copyFrom(segment().asSlice(0, dst.byteSize()));
    }

    private MemorySegment checked(MemorySegment host, String what) {
        if (host == null || host.byteSize() > segment.byteSize()) {
            throw NcclException.of(Result.INVALID_ARGUMENT, what + " of " + (host == null ? "null" : host.byteSize()
                    + " bytes") + " for a " + segment.byteSize() + "-byte buffer", "copy at most byteSize() bytes");
        }
        return host;
    }

    @Override
    public void close() {
        if (owner != null && closed.compareAndSet(false, true)) {
            owner.close();
        }
    }

    @Override
    public String toString() {
        return "DeviceBuffer[" + device + " host 0x" + Long.toHexString(segment.address()) + " " + segment.byteSize()
                + " B]";
    }
}
