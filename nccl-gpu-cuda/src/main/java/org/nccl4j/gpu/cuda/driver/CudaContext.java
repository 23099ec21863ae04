package org.nccl4j.gpu.cuda.driver;

import static org.bytedeco.cuda.global.cudart.cuCtxEnablePeerAccess;
import static org.bytedeco.cuda.global.cudart.cuCtxSetCurrent;
import static org.bytedeco.cuda.global.cudart.cuDeviceCanAccessPeer;
import static org.bytedeco.cuda.global.cudart.cuEventCreate;
import static org.bytedeco.cuda.global.cudart.cuEventDestroy;
import static org.bytedeco.cuda.global.cudart.cuEventElapsedTime;
import static org.bytedeco.cuda.global.cudart.cuEventQuery;
import static org.bytedeco.cuda.global.cudart.cuEventRecord;
import static org.bytedeco.cuda.global.cudart.cuEventSynchronize;
import static org.bytedeco.cuda.global.cudart.cuIpcCloseMemHandle;
import static org.bytedeco.cuda.global.cudart.cuIpcGetMemHandle;
import static org.bytedeco.cuda.global.cudart.cuIpcOpenMemHandle;
import static org.bytedeco.cuda.global.cudart.cuLaunchKernel;
import static org.bytedeco.cuda.global.cudart.cuMemAlloc;
import static org.bytedeco.cuda.global.cudart.cuMemFree;
import static org.bytedeco.cuda.global.cudart.cuMemFreeHost;
import static org.bytedeco.cuda.global.cudart.cuMemHostAlloc;
import static org.bytedeco.cuda.global.cudart.cuMemHostGetDevicePointer;
import static org.bytedeco.cuda.global.cudart.cuMemHostRegister;
import static org.bytedeco.cuda.global.cudart.cuMemHostUnregister;
import static org.bytedeco.cuda.global.cudart.cuMemcpyDtoD;
import static org.bytedeco.cuda.global.cudart.cuMemcpyDtoDAsync;
import static org.bytedeco.cuda.global.cudart.cuMemcpyDtoH;
import static org.bytedeco.cuda.global.cudart.cuMemcpyDtoHAsync;
import static org.bytedeco.cuda.global.cudart.cuMemcpyHtoD;
import static org.bytedeco.cuda.global.cudart.cuMemcpyHtoDAsync;
import static org.bytedeco.cuda.global.cudart.cuMemsetD8Async;
import static org.bytedeco.cuda.global.cudart.cuModuleGetFunction;
import static org.bytedeco.cuda.global.cudart.cuModuleLoadData;
import static org.bytedeco.cuda.global.cudart.cuModuleUnload;
import static org.bytedeco.cuda.global.cudart.cuPointerGetAttributes;
import static org.bytedeco.cuda.global.cudart.cuStreamCreate;
import static org.bytedeco.cuda.global.cudart.cuStreamDestroy;
import static org.bytedeco.cuda.global.cudart.cuStreamQuery;
import static org.bytedeco.cuda.global.cudart.cuStreamSynchronize;
import static org.bytedeco.cuda.global.cudart.cuStreamWaitEvent;

import org.bytedeco.cuda.cudart.CUipcMemHandle_v1;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.gpu.GpuPointer;
import org.nccl4j.core.device.gpu.GpuRuntime;

/**
 * A device's primary context (from {@link CudaDriver#primaryContext}) and the driver calls made
 * in it. Every method first makes the context current on the calling thread, calling
 * {@code cuCtxSetCurrent} only when this thread's last context was another one (virtual threads
 * always call it: their carrier thread, which CUDA sees, may change). Other code that changes
 * the thread's current context behind this class's back is not noticed.
 *
 * <p>Device pointers, streams, events, modules and functions are the driver's handles as plain
 * {@code long}s; host memory is a {@code long} address (e.g. {@code MemorySegment.address()}).
 * Stream 0 is the legacy default stream; streams from {@link #streamCreate()} do not synchronise
 * with it. Every failure throws {@link NcclException} with {@link Result#UNHANDLED_DEVICE_ERROR},
 * naming the call, its arguments and the driver's error; bad arguments throw
 * {@link Result#INVALID_ARGUMENT}.
 */
public final class CudaContext implements GpuRuntime {

    private final int device;
    private final int cuDevice;
    private final long handle;
    private final Refs.Context ref;

    CudaContext(int device, int cuDevice, long handle) {
        this.device = device;
        this.cuDevice = cuDevice;
        this.handle = handle;
        this.ref = new Refs.Context().at(handle);
    }

    /** @return the device ordinal */
    @Override
    public int device() {
        return device;
    }

    /** @return the {@code CUcontext} */
    public long handle() {
        return handle;
    }

    private CallFrame enter() {
        CallFrame f = CallFrame.get();
        if (f.current != this || f.virtual) {
            int rc = cuCtxSetCurrent(ref);
            if (rc != CuResult.SUCCESS) {
                throw CuResult.error(rc, "cuCtxSetCurrent(device " + device + ")");
            }
            f.current = this;
        }
        return f;
    }

    // Memory.

    /**
     * @param bytes how much, at least 1
     * @return the device pointer
     */
    @Override
    public long memAlloc(long bytes) {
        positive(bytes, "bytes");
        CallFrame f = enter();
        int rc = cuMemAlloc(f.longOut, bytes);
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuMemAlloc(" + bytes + ") on device " + device);
        }
        return f.longOut[0];
    }

    /** @param dptr a pointer from {@link #memAlloc} */
    @Override
    public void memFree(long dptr) {
        enter();
        int rc = cuMemFree(dptr);
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuMemFree(0x" + Long.toHexString(dptr) + ")");
        }
    }

    /**
     * Sets {@code bytes} bytes to {@code value}, asynchronously on {@code stream}.
     *
     * @param dptr   device pointer
     * @param value  the byte value (its low 8 bits)
     * @param bytes  how many
     * @param stream the stream
     */
    @Override
    public void memsetD8(long dptr, int value, long bytes, long stream) {
        CallFrame f = enter();
        int rc = cuMemsetD8Async(dptr, (byte) value, bytes, f.stream.at(stream));
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuMemsetD8Async(0x" + Long.toHexString(dptr) + ", " + value + ", " + bytes
                    + ", stream 0x" + Long.toHexString(stream) + ")");
        }
    }

    /**
     * Host to device. With stream 0 it returns once the data is on the device (stream 0
     * synchronized); with another stream it is queued there, and truly asynchronous only for pinned host memory (e.g. {@link #hostAllocMapped}).
     *
     * @param dptr        destination device pointer
     * @param hostAddress source host address
     * @param bytes       how many
     * @param stream      0, or the stream to queue it on
     */
    @Override
    public void copyHtoD(long dptr, long hostAddress, long bytes, long stream) {
        CallFrame f = enter();
        int rc = stream == 0 ? cuMemcpyHtoD(dptr, f.host.at(hostAddress), bytes)
                : cuMemcpyHtoDAsync(dptr, f.host.at(hostAddress), bytes, f.stream.at(stream));
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, copy("HtoD", dptr, hostAddress, bytes, stream));
        }
        if (stream == 0) {
            // From pageable memory cuMemcpyHtoD may return before the DMA has landed, and kernels on
            // our non-blocking streams do not wait for stream 0: wait for it here.
            rc = cuStreamSynchronize(f.stream.at(0));
            if (rc != CuResult.SUCCESS) {
                throw CuResult.error(rc, "cuStreamSynchronize(0) after " + copy("HtoD", dptr, hostAddress, bytes, 0));
            }
        }
    }

    /**
     * Device to host; stream 0 and others as for {@link #copyHtoD}.
     *
     * @param hostAddress destination host address
     * @param dptr        source device pointer
     * @param bytes       how many
     * @param stream      0, or the stream to queue it on
     */
    @Override
    public void copyDtoH(long hostAddress, long dptr, long bytes, long stream) {
        CallFrame f = enter();
        int rc = stream == 0 ? cuMemcpyDtoH(f.host.at(hostAddress), dptr, bytes)
                : cuMemcpyDtoHAsync(f.host.at(hostAddress), dptr, bytes, f.stream.at(stream));
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, copy("DtoH", hostAddress, dptr, bytes, stream));
        }
    }

    /**
     * Device to device; stream 0 and others as for {@link #copyHtoD}.
     *
     * @param dst    destination device pointer
     * @param src    source device pointer
     * @param bytes  how many
     * @param stream 0, or the stream to queue it on
     */
    @Override
    public void copyDtoD(long dst, long src, long bytes, long stream) {
        CallFrame f = enter();
        int rc = stream == 0 ? cuMemcpyDtoD(dst, src, bytes) : cuMemcpyDtoDAsync(dst, src, bytes, f.stream.at(stream));
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, copy("DtoD", dst, src, bytes, stream));
        }
    }

    private static String copy(String kind, long dst, long src, long bytes, long stream) {
        return "cuMemcpy" + kind + (stream == 0 ? "" : "Async") + "(0x" + Long.toHexString(dst) + ", 0x"
                + Long.toHexString(src) + ", " + bytes + (stream == 0 ? "" : ", stream 0x" + Long.toHexString(stream))
                + ")";
    }

    /**
     * Pinned host memory that every context can use ({@code PORTABLE}) and that is mapped into the
     * device's address space ({@code DEVICEMAP}; see {@link #devicePointerOf}), zeroed.
     *
     * @param bytes how much, at least 1
     * @return its host address
     */
    @Override
    public long hostAllocMapped(long bytes) {
        positive(bytes, "bytes");
        CallFrame f = enter();
        int rc = cuMemHostAlloc(f.host.at(0), bytes, cudart.CU_MEMHOSTALLOC_PORTABLE | cudart.CU_MEMHOSTALLOC_DEVICEMAP);
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuMemHostAlloc(" + bytes + ", PORTABLE|DEVICEMAP)");
        }
        long address = f.host.address();
        Pointer.memset(f.host, 0, bytes);
        return address;
    }

    /**
     * @param hostAddress memory from {@link #hostAllocMapped} or {@link #hostRegister}
     * @return the address at which this context's device sees it
     */
    @Override
    public long devicePointerOf(long hostAddress) {
        CallFrame f = enter();
        int rc = cuMemHostGetDevicePointer(f.longOut, f.host.at(hostAddress), 0);
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuMemHostGetDevicePointer(0x" + Long.toHexString(hostAddress) + ")");
        }
        return f.longOut[0];
    }

    /**
     * Page-locks host memory this process mapped (a {@code /dev/shm} segment) for every context
     * ({@code PORTABLE}) and maps it into the device's address space ({@code DEVICEMAP}; see
     * {@link #devicePointerOf}), as NCCL's SHM transport does with {@code cudaHostRegister}.
     *
     * @param hostAddress where it starts, page aligned
     * @param bytes       how much, at least 1
     */
    @Override
    public void hostRegister(long hostAddress, long bytes) {
        positive(bytes, "bytes");
        CallFrame f = enter();
        int rc = cuMemHostRegister(f.host.at(hostAddress), bytes,
                cudart.CU_MEMHOSTREGISTER_PORTABLE | cudart.CU_MEMHOSTREGISTER_DEVICEMAP);
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuMemHostRegister(0x" + Long.toHexString(hostAddress) + ", " + bytes
                    + ", PORTABLE|DEVICEMAP)");
        }
    }

    /** @param hostAddress memory given to {@link #hostRegister} */
    @Override
    public void hostUnregister(long hostAddress) {
        CallFrame f = enter();
        int rc = cuMemHostUnregister(f.host.at(hostAddress));
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuMemHostUnregister(0x" + Long.toHexString(hostAddress) + ")");
        }
    }

    /** @param hostAddress memory from {@link #hostAllocMapped} */
    @Override
    public void freeHost(long hostAddress) {
        CallFrame f = enter();
        int rc = cuMemFreeHost(f.host.at(hostAddress));
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuMemFreeHost(0x" + Long.toHexString(hostAddress) + ")");
        }
    }

    /**
     * @param address any address
     * @return what CUDA knows of it; memory type 0 when it is not CUDA's
     */
    @Override
    public GpuPointer pointerInfo(long address) {
        CallFrame f = enter();
        f.clearAttributes();
        int rc = cuPointerGetAttributes(CallFrame.POINTER_ATTRIBUTES.length, f.attributeIds, f.attributeSlots, address);
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuPointerGetAttributes(MEMORY_TYPE, DEVICE_ORDINAL, IS_MANAGED, 0x"
                    + Long.toHexString(address) + ")");
        }
        int type = f.attribute(0);
        return new GpuPointer(type, type == 0 ? -1 : f.attribute(1), f.attribute(2) != 0);
    }

    // Streams and events.

    /** @return a new stream that does not synchronise with stream 0 ({@code CU_STREAM_NON_BLOCKING}) */
    @Override
    public long streamCreate() {
        CallFrame f = enter();
        int rc = cuStreamCreate(f.stream.at(0), cudart.CU_STREAM_NON_BLOCKING);
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuStreamCreate(NON_BLOCKING)");
        }
        return f.stream.address();
    }

    /** @param stream a stream from {@link #streamCreate} */
    @Override
    public void streamDestroy(long stream) {
        CallFrame f = enter();
        int rc = cuStreamDestroy(f.stream.at(stream));
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuStreamDestroy(0x" + Long.toHexString(stream) + ")");
        }
    }

    /** @param stream waits until all its work is done */
    @Override
    public void streamSynchronize(long stream) {
        CallFrame f = enter();
        int rc = cuStreamSynchronize(f.stream.at(stream));
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuStreamSynchronize(0x" + Long.toHexString(stream) + ")");
        }
    }

    /**
     * @param stream a stream
     * @return whether all its work is done
     */
    @Override
    public boolean streamQuery(long stream) {
        CallFrame f = enter();
        int rc = cuStreamQuery(f.stream.at(stream));
        if (rc == CuResult.SUCCESS || rc == CuResult.NOT_READY) {
            return rc == CuResult.SUCCESS;
        }
        throw CuResult.error(rc, "cuStreamQuery(0x" + Long.toHexString(stream) + ")");
    }

    /**
     * Later work on {@code stream} waits for {@code event}'s last record; the caller does not wait.
     *
     * @param stream the waiting stream
     * @param event  the event
     */
    @Override
    public void streamWaitEvent(long stream, long event) {
        CallFrame f = enter();
        int rc = cuStreamWaitEvent(f.stream.at(stream), f.event.at(event), 0);
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuStreamWaitEvent(0x" + Long.toHexString(stream) + ", 0x"
                    + Long.toHexString(event) + ")");
        }
    }

    /**
     * @param timing whether {@link #eventElapsedMillis} may use it (else {@code CU_EVENT_DISABLE_TIMING}, cheaper)
     * @return a new event
     */
    @Override
    public long eventCreate(boolean timing) {
        CallFrame f = enter();
        int rc = cuEventCreate(f.event.at(0), timing ? cudart.CU_EVENT_DEFAULT : cudart.CU_EVENT_DISABLE_TIMING);
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuEventCreate(" + (timing ? "DEFAULT" : "DISABLE_TIMING") + ")");
        }
        return f.event.address();
    }

    /**
     * @param event  the event
     * @param stream the stream whose work so far it marks
     */
    @Override
    public void eventRecord(long event, long stream) {
        CallFrame f = enter();
        int rc = cuEventRecord(f.event.at(event), f.stream.at(stream));
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuEventRecord(0x" + Long.toHexString(event) + ", stream 0x"
                    + Long.toHexString(stream) + ")");
        }
    }

    /**
     * @param event an event
     * @return whether the work it marks is done
     */
    @Override
    public boolean eventQuery(long event) {
        CallFrame f = enter();
        int rc = cuEventQuery(f.event.at(event));
        if (rc == CuResult.SUCCESS || rc == CuResult.NOT_READY) {
            return rc == CuResult.SUCCESS;
        }
        throw CuResult.error(rc, "cuEventQuery(0x" + Long.toHexString(event) + ")");
    }

    /** @param event waits until the work it marks is done */
    @Override
    public void eventSynchronize(long event) {
        CallFrame f = enter();
        int rc = cuEventSynchronize(f.event.at(event));
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuEventSynchronize(0x" + Long.toHexString(event) + ")");
        }
    }

    /**
     * @param start an event made with timing, recorded and done
     * @param end   another, recorded after it
     * @return the time between them in milliseconds
     */
    @Override
    public float eventElapsedMillis(long start, long end) {
        CallFrame f = enter();
        int rc = cuEventElapsedTime(f.floatOut, f.event.at(start), f.event2.at(end));
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuEventElapsedTime(0x" + Long.toHexString(start) + ", 0x"
                    + Long.toHexString(end) + ")");
        }
        return f.floatOut[0];
    }

    /** @param event an event from {@link #eventCreate} */
    @Override
    public void eventDestroy(long event) {
        CallFrame f = enter();
        int rc = cuEventDestroy(f.event.at(event));
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuEventDestroy(0x" + Long.toHexString(event) + ")");
        }
    }

    // Modules and kernels.

    /**
     * @param image a fatbin, cubin or PTX text
     * @return the loaded module
     */
    @Override
    public long moduleLoad(byte[] image) {
        if (image == null || image.length == 0) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "module image is " + (image == null ? "null" : "empty"),
                    "pass a fatbin, cubin or PTX image");
        }
        CallFrame f = enter();
        // One byte more, zero: PTX text must end with NUL; binary images ignore it.
        try (BytePointer copy = new BytePointer(image.length + 1L)) {
            copy.put(image).put(image.length, (byte) 0);
            int rc = cuModuleLoadData(f.module.at(0), copy);
            if (rc != CuResult.SUCCESS) {
                throw CuResult.error(rc, "cuModuleLoadData(" + image.length + " bytes) on device " + device);
            }
            return f.module.address();
        }
    }

    /** @param module a module from {@link #moduleLoad}; its functions are no longer usable */
    @Override
    public void moduleUnload(long module) {
        CallFrame f = enter();
        int rc = cuModuleUnload(f.module.at(module));
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuModuleUnload(0x" + Long.toHexString(module) + ")");
        }
    }

    /**
     * @param module a loaded module
     * @param name   a kernel's entry name ({@code extern "C"}, so not mangled)
     * @return the {@code CUfunction}
     */
    @Override
    public long function(long module, String name) {
        CallFrame f = enter();
        int rc = cuModuleGetFunction(f.function.at(0), f.module.at(module), name);
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuModuleGetFunction(0x" + Long.toHexString(module) + ", \"" + name + "\")");
        }
        return f.function.address();
    }

    /**
     * Queues a kernel on a stream, one-dimensional grid and block. The kernel takes exactly one
     * parameter, a struct, packed in host memory at {@code argsAddress} as the kernel lays it out
     * (the driver copies it before this returns, so the memory may be reused at once).
     *
     * @param function    the kernel
     * @param gridX       blocks
     * @param blockX      threads per block
     * @param sharedBytes dynamic shared memory per block
     * @param stream      the stream
     * @param argsAddress host address of the packed arguments (ignored when argsBytes is 0)
     * @param argsBytes   their size
     */
    @Override
    public void launch(long function, int gridX, int blockX, int sharedBytes, long stream, long argsAddress,
                       long argsBytes) {
        CallFrame f = enter();
        Pointer params = argsBytes == 0 ? null : f.kernelParam.at(argsAddress);
        int rc = cuLaunchKernel(f.function.at(function), gridX, 1, 1, blockX, 1, 1, sharedBytes, f.stream.at(stream),
                params, (Pointer) null);
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuLaunchKernel(0x" + Long.toHexString(function) + ", grid " + gridX + ", block "
                    + blockX + ", shared " + sharedBytes + ", stream 0x" + Long.toHexString(stream) + ", args "
                    + argsBytes + " bytes)");
        }
    }

    // Sharing memory with other processes and devices.

    /**
     * @param dptr the start of an allocation from {@link #memAlloc}
     * @return its {@code CUipcMemHandle} ({@link #IPC_HANDLE_BYTES} bytes) for another process's {@link #ipcOpen}
     */
    @Override
    public byte[] ipcHandle(long dptr) {
        enter();
        try (CUipcMemHandle_v1 h = new CUipcMemHandle_v1()) {
            int rc = cuIpcGetMemHandle(h, dptr);
            if (rc != CuResult.SUCCESS) {
                throw CuResult.error(rc, "cuIpcGetMemHandle(0x" + Long.toHexString(dptr) + ")");
            }
            byte[] out = new byte[IPC_HANDLE_BYTES];
            h.reserved().get(out);
            return out;
        }
    }

    /**
     * @param handle another process's {@link #ipcHandle}
     * @return the memory's address in this context (peer access enabled as needed)
     */
    @Override
    public long ipcOpen(byte[] handle) {
        if (handle == null || handle.length != IPC_HANDLE_BYTES) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "CUDA IPC handle of "
                            + (handle == null ? "null" : handle.length + " bytes") + ", expected " + IPC_HANDLE_BYTES,
                    "pass the bytes another process's ipcHandle returned, unchanged");
        }
        CallFrame f = enter();
        try (CUipcMemHandle_v1 h = new CUipcMemHandle_v1()) {
            h.reserved().put(handle);
            int rc = cuIpcOpenMemHandle(f.longOut, h, cudart.CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
            if (rc != CuResult.SUCCESS) {
                throw CuResult.error(rc, "cuIpcOpenMemHandle(LAZY_ENABLE_PEER_ACCESS) on device " + device);
            }
            return f.longOut[0];
        }
    }

    /** @param dptr an address from {@link #ipcOpen} */
    @Override
    public void ipcClose(long dptr) {
        enter();
        int rc = cuIpcCloseMemHandle(dptr);
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuIpcCloseMemHandle(0x" + Long.toHexString(dptr) + ")");
        }
    }

    /**
     * @param other another device's context (a CUDA one)
     * @return whether this device can access the peer's memory directly (always for the same device)
     */
    @Override
    public boolean canAccessPeer(GpuRuntime other) {
        CudaContext peer = (CudaContext) other;
        if (peer.cuDevice == cuDevice) {
            return true;
        }
        CallFrame f = enter();
        int rc = cuDeviceCanAccessPeer(f.intOut, cuDevice, peer.cuDevice);
        if (rc != CuResult.SUCCESS) {
            throw CuResult.error(rc, "cuDeviceCanAccessPeer(" + device + ", " + peer.device + ")");
        }
        return f.intOut[0] != 0;
    }

    /**
     * Lets this context access the peer's memory; already enabled, or the same device, is fine.
     *
     * @param other another device's context (a CUDA one)
     */
    @Override
    public void enablePeerAccess(GpuRuntime other) {
        CudaContext peer = (CudaContext) other;
        if (peer.cuDevice == cuDevice) {
            return;
        }
        enter();
        int rc = cuCtxEnablePeerAccess(peer.ref, 0);
        if (rc != CuResult.SUCCESS && rc != cudart.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
            throw CuResult.error(rc, "cuCtxEnablePeerAccess(device " + device + " -> device " + peer.device + ")");
        }
    }

    private static void positive(long bytes, String what) {
        if (bytes <= 0) {
            throw NcclException.of(Result.INVALID_ARGUMENT, what + " = " + bytes + ", must be at least 1",
                    "allocate a positive number of bytes");
        }
    }

    @Override
    public String toString() {
        return "CudaContext[device " + device + ", 0x" + Long.toHexString(handle) + "]";
    }
}
