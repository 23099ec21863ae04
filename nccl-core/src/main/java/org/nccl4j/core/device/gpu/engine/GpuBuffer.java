package org.nccl4j.core.device.gpu.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import org.nccl4j.Device;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.gpu.GpuRuntime;

/** Device memory of one GPU: allocated here (owned) or wrapped (a slice, or memory of another library). */
final class GpuBuffer implements DeviceBuffer {
    private final GpuRuntime ctx;
    private final Device device;
    private final long address;
    private final long bytes;
    private final boolean owned;
    private final AtomicBoolean closed = new AtomicBoolean();

    GpuBuffer(GpuRuntime ctx, Device device, long address, long bytes, boolean owned) {
        this.ctx = ctx;
        this.device = device;
        this.address = address;
        this.bytes = bytes;
        this.owned = owned;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long byteSize() {
        return bytes;
    }

    @Override
    public DeviceBuffer slice(long offset, long length) {
        if (offset < 0 || length < 0 || offset > bytes || length > bytes - offset) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "slice [" + offset + ", +" + length + ") of a " + bytes
                    + "-byte device buffer", "keep the range inside the buffer");
        }
        return new GpuBuffer(ctx, device, address + offset, length, false);
    }

    @Override
    public void copyFrom(MemorySegment src) {
        check(src, "source");
        if (src.isNative()) {
            ctx.copyHtoD(address, src.address(), src.byteSize(), 0);
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment staged = a.allocate(src.byteSize(), 16).copyFrom(src);
            ctx.copyHtoD(address, staged.address(), src.byteSize(), 0);
        }
    }

    @Override
    public void copyTo(MemorySegment dst) {
        check(dst, "destination");
        if (dst.isNative()) {
            ctx.copyDtoH(dst.address(), address, dst.byteSize(), 0);
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment staged = a.allocate(dst.byteSize(), 16);
            ctx.copyDtoH(staged.address(), address, dst.byteSize(), 0);
            dst.copyFrom(staged);
        }
    }

    private void check(MemorySegment host, String what) {
        if (closed.get()) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "device buffer " + this + " was freed", null);
        }
        if (host == null || host.byteSize() > bytes) {
            throw NcclException.of(Result.INVALID_ARGUMENT, what + " of " + (host == null ? "null" : host.byteSize()
                    + " bytes") + " for a " + bytes + "-byte device buffer", "copy at most byteSize() bytes");
        }
    }

    @Override
    public void close() {
        if (owned && closed.compareAndSet(false, true)) {
            ctx.memFree(address);
        }
    }

    @Override
    public String toString() {
        return "DeviceBuffer[" + device + " 0x" + Long.toHexString(address) + " " + bytes + " B]";
    }
}
