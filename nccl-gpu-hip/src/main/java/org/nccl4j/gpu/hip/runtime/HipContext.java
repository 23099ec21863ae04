package org.nccl4j.gpu.hip.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.gpu.GpuPointer;
import org.nccl4j.core.device.gpu.GpuRuntime;

/**
 * One AMD GPU as the GPU engine drives it: {@link GpuRuntime} over the HIP runtime's calls, as
 * {@code CudaContext} is over the CUDA driver's. HIP has no contexts to make current: each call
 * first selects this context's device on the calling thread ({@code hipSetDevice}, a thread-local
 * setting in the runtime). Handles are the runtime's pointers as {@code long}s; out-parameters go
 * through a small per-thread scratch segment, so a call allocates nothing native.
 */
@SuppressWarnings("restricted") // MemorySegment.reinterpret on the runtime's own allocations
public final class HipContext implements GpuRuntime {
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private final HipRuntime rt;
    private final int device;
    private final HipMemoryTypes memoryTypes;
    /** Whether calls select the device first: always, but in {@link #unselected}'s. */
    private final boolean select;

    private HipContext(HipRuntime rt, int device, boolean select) {
        this.rt = rt;
        this.device = device;
        this.memoryTypes = HipMemoryTypes.of(rt.runtimeVersion());
        this.select = select;
    }

    /**
     * @param rt     the loaded runtime
     * @param device a HIP device ordinal of this process ({@code HIP_VISIBLE_DEVICES} applies)
     * @return the device's context
     * @throws NcclException INVALID_ARGUMENT when this process has no such AMD GPU
     */
    public static HipContext open(HipRuntime rt, int device) {
        int count = rt.deviceCount();
        if (device < 0 || device >= count) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "HIP device " + device + " is not one of this process's "
                    + count + " AMD GPU" + (count == 1 ? "" : "s"), "pick a device from 0 to " + (count - 1)
                    + " (HIP_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES change which GPUs a process sees)");
        }
        HipContext c = new HipContext(rt, device, true);
        c.enter();
        return c;
    }

    /**
     * A context whose calls go straight to their own HIP function, without selecting the device:
     * on a machine without an AMD GPU every HIP call answers {@code hipErrorInvalidDevice} at
     * once, so the tests drive each call through its downcall into the real runtime this way.
     */
    static HipContext unselected(HipRuntime rt, int device) {
        return new HipContext(rt, device, false);
    }

    @Override
    public int device() {
        return device;
    }

    /** Selects this device on the calling thread; returns its scratch for out-parameters. */
    private Scratch enter() {
        if (!select) {
            return SCRATCH.get();
        }
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipSetDevice).invokeExact(device));
        check(HipFunction.hipSetDevice, rc, Integer.toString(device));
        return SCRATCH.get();
    }

    // Memory.

    @Override
    public long memAlloc(long bytes) {
        positive(bytes);
        Scratch s = enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipMalloc).invokeExact(s.out, bytes));
        check(HipFunction.hipMalloc, rc, bytes + " bytes on device " + device);
        return s.outAddress();
    }

    @Override
    public void memFree(long dptr) {
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipFree).invokeExact(at(dptr)));
        check(HipFunction.hipFree, rc, hex(dptr));
    }

    @Override
    public void memsetD8(long dptr, int value, long bytes, long stream) {
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipMemsetD8Async).invokeExact(at(dptr), (byte) value, bytes,
                at(stream)));
        check(HipFunction.hipMemsetD8Async, rc, hex(dptr) + ", " + value + ", " + bytes + ", stream " + hex(stream));
    }

    @Override
    public void copyHtoD(long dptr, long hostAddress, long bytes, long stream) {
        copy(dptr, hostAddress, bytes, HipFlags.MEMCPY_HOST_TO_DEVICE, stream);
        if (stream == 0) {
            // As the CUDA backend: kernels on the engine's non-blocking streams do not wait for
            // stream 0, and a copy from pageable memory may return before it has landed.
            streamSynchronize(0);
        }
    }

    @Override
    public void copyDtoH(long hostAddress, long dptr, long bytes, long stream) {
        copy(hostAddress, dptr, bytes, HipFlags.MEMCPY_DEVICE_TO_HOST, stream);
    }

    @Override
    public void copyDtoD(long dst, long src, long bytes, long stream) {
        copy(dst, src, bytes, HipFlags.MEMCPY_DEVICE_TO_DEVICE, stream);
    }

    private void copy(long dst, long src, long bytes, int kind, long stream) {
        enter();
        int rc;
        HipFunction f;
        if (stream == 0) {
            f = HipFunction.hipMemcpy;
            rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipMemcpy).invokeExact(at(dst), at(src), bytes, kind));
        } else {
            f = HipFunction.hipMemcpyAsync;
            rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipMemcpyAsync).invokeExact(at(dst), at(src), bytes, kind,
                    at(stream)));
        }
        check(f, rc, hex(dst) + ", " + hex(src) + ", " + bytes + ", kind " + kind
                + (stream == 0 ? "" : ", stream " + hex(stream)));
    }

    @Override
    public long hostAllocMapped(long bytes) {
        positive(bytes);
        Scratch s = enter();
        int flags = HipFlags.HOST_MALLOC_PORTABLE | HipFlags.HOST_MALLOC_MAPPED;
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipHostMalloc).invokeExact(s.out, bytes, flags));
        check(HipFunction.hipHostMalloc, rc, bytes + ", Portable|Mapped");
        long address = s.outAddress();
        at(address).reinterpret(bytes).fill((byte) 0);
        return address;
    }

    @Override
    public long devicePointerOf(long hostAddress) {
        Scratch s = enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipHostGetDevicePointer).invokeExact(s.out, at(hostAddress),
                0));
        check(HipFunction.hipHostGetDevicePointer, rc, hex(hostAddress));
        return s.outAddress();
    }

    @Override
    public void hostRegister(long hostAddress, long bytes) {
        positive(bytes);
        enter();
        int flags = HipFlags.HOST_REGISTER_PORTABLE | HipFlags.HOST_REGISTER_MAPPED;
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipHostRegister).invokeExact(at(hostAddress), bytes, flags));
        check(HipFunction.hipHostRegister, rc, hex(hostAddress) + ", " + bytes + ", Portable|Mapped");
    }

    @Override
    public void hostUnregister(long hostAddress) {
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipHostUnregister).invokeExact(at(hostAddress)));
        check(HipFunction.hipHostUnregister, rc, hex(hostAddress));
    }

    @Override
    public void freeHost(long hostAddress) {
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipHostFree).invokeExact(at(hostAddress)));
        check(HipFunction.hipHostFree, rc, hex(hostAddress));
    }

    /**
     * {@code hipDrvPointerGetAttributes} (memory type, device ordinal, managed), the type in
     * CUDA's numbering ({@link HipMemoryTypes}). Memory HIP does not know (plain host memory) is
     * answered with {@code hipErrorInvalidValue}, as CUDA did before 11.0: that is an unknown pointer.
     */
    @Override
    public GpuPointer pointerInfo(long address) {
        Scratch s = enter();
        s.prepareAttributes();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipDrvPointerGetAttributes).invokeExact(Scratch.ATTRIBUTES,
                s.attributeIds, s.attributeData, at(address)));
        if (rc == HipFlags.ERROR_INVALID_VALUE) {
            return new GpuPointer(0, -1, false);
        }
        check(HipFunction.hipDrvPointerGetAttributes, rc, "MEMORY_TYPE, DEVICE_ORDINAL, IS_MANAGED, " + hex(address));
        int type = memoryTypes.toCuda(s.attribute(0));
        return new GpuPointer(type, type == 0 ? -1 : s.attribute(1), s.attribute(2) != 0);
    }

    // Streams and events.

    @Override
    public long streamCreate() {
        Scratch s = enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipStreamCreateWithFlags).invokeExact(s.out,
                HipFlags.STREAM_NON_BLOCKING));
        check(HipFunction.hipStreamCreateWithFlags, rc, "NonBlocking");
        return s.outAddress();
    }

    @Override
    public void streamDestroy(long stream) {
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipStreamDestroy).invokeExact(at(stream)));
        check(HipFunction.hipStreamDestroy, rc, hex(stream));
    }

    @Override
    public void streamSynchronize(long stream) {
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipStreamSynchronize).invokeExact(at(stream)));
        check(HipFunction.hipStreamSynchronize, rc, hex(stream));
    }

    @Override
    public boolean streamQuery(long stream) {
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipStreamQuery).invokeExact(at(stream)));
        return ready(HipFunction.hipStreamQuery, rc, hex(stream));
    }

    @Override
    public void streamWaitEvent(long stream, long event) {
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipStreamWaitEvent).invokeExact(at(stream), at(event), 0));
        check(HipFunction.hipStreamWaitEvent, rc, hex(stream) + ", " + hex(event));
    }

    @Override
    public long eventCreate(boolean timing) {
        Scratch s = enter();
        int flags = timing ? HipFlags.EVENT_DEFAULT : HipFlags.EVENT_DISABLE_TIMING;
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipEventCreateWithFlags).invokeExact(s.out, flags));
        check(HipFunction.hipEventCreateWithFlags, rc, timing ? "Default" : "DisableTiming");
        return s.outAddress();
    }

    @Override
    public void eventRecord(long event, long stream) {
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipEventRecord).invokeExact(at(event), at(stream)));
        check(HipFunction.hipEventRecord, rc, hex(event) + ", stream " + hex(stream));
    }

    @Override
    public boolean eventQuery(long event) {
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipEventQuery).invokeExact(at(event)));
        return ready(HipFunction.hipEventQuery, rc, hex(event));
    }

    @Override
    public void eventSynchronize(long event) {
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipEventSynchronize).invokeExact(at(event)));
        check(HipFunction.hipEventSynchronize, rc, hex(event));
    }

    @Override
    public float eventElapsedMillis(long start, long end) {
        Scratch s = enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipEventElapsedTime).invokeExact(s.out, at(start), at(end)));
        check(HipFunction.hipEventElapsedTime, rc, hex(start) + ", " + hex(end));
        return s.out.get(ValueLayout.JAVA_FLOAT, 0);
    }

    @Override
    public void eventDestroy(long event) {
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipEventDestroy).invokeExact(at(event)));
        check(HipFunction.hipEventDestroy, rc, hex(event));
    }

    // Modules and kernels.

    /** @param image a code object for this device's architecture (one entry of the offload bundle) */
    @Override
    public long moduleLoad(byte[] image) {
        if (image == null || image.length == 0) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "module image is " + (image == null ? "null" : "empty"),
                    "pass an AMD GPU code object for this device's architecture");
        }
        Scratch s = enter();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment copy = arena.allocate(image.length);
            MemorySegment.copy(image, 0, copy, ValueLayout.JAVA_BYTE, 0, image.length);
            int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipModuleLoadData).invokeExact(s.out, copy));
            check(HipFunction.hipModuleLoadData, rc, image.length + " bytes on device " + device);
        }
        return s.outAddress();
    }

    @Override
    public void moduleUnload(long module) {
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipModuleUnload).invokeExact(at(module)));
        check(HipFunction.hipModuleUnload, rc, hex(module));
    }

    @Override
    public long function(long module, String name) {
        Scratch s = enter();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cname = arena.allocateFrom(name);
            int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipModuleGetFunction).invokeExact(s.out, at(module),
                    cname));
            check(HipFunction.hipModuleGetFunction, rc, hex(module) + ", \"" + name + "\"");
        }
        return s.outAddress();
    }

    /**
     * {@code hipModuleLaunchKernel} with the kernel's one parameter, the packed struct at
     * {@code argsAddress}, passed as {@code kernelParams} (a one-element array pointing at it).
     */
    @Override
    public void launch(long function, int gridX, int blockX, int sharedBytes, long stream, long argsAddress,
                       long argsBytes) {
        Scratch s = enter();
        MemorySegment params = argsBytes == 0 ? MemorySegment.NULL : s.kernelParams(argsAddress);
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipModuleLaunchKernel).invokeExact(at(function), gridX, 1, 1,
                blockX, 1, 1, sharedBytes, at(stream), params, MemorySegment.NULL));
        check(HipFunction.hipModuleLaunchKernel, rc, hex(function) + ", grid " + gridX + ", block " + blockX
                + ", shared " + sharedBytes + ", stream " + hex(stream) + ", args " + argsBytes + " bytes");
    }

    // Sharing memory with other processes and devices.

    @Override
    public byte[] ipcHandle(long dptr) {
        Scratch s = enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipIpcGetMemHandle).invokeExact(s.ipcHandle, at(dptr)));
        check(HipFunction.hipIpcGetMemHandle, rc, hex(dptr));
        return s.ipcHandle.toArray(ValueLayout.JAVA_BYTE);
    }

    @Override
    public long ipcOpen(byte[] handle) {
        if (handle == null || handle.length != IPC_HANDLE_BYTES) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "HIP IPC handle of "
                            + (handle == null ? "null" : handle.length + " bytes") + ", expected " + IPC_HANDLE_BYTES,
                    "pass the bytes another process's ipcHandle returned, unchanged");
        }
        Scratch s = enter();
        MemorySegment.copy(handle, 0, s.ipcHandle, ValueLayout.JAVA_BYTE, 0, IPC_HANDLE_BYTES);
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipIpcOpenMemHandle).invokeExact(s.out, s.ipcHandle,
                HipFlags.IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
        check(HipFunction.hipIpcOpenMemHandle, rc, "LazyEnablePeerAccess, on device " + device);
        return s.outAddress();
    }

    @Override
    public void ipcClose(long dptr) {
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipIpcCloseMemHandle).invokeExact(at(dptr)));
        check(HipFunction.hipIpcCloseMemHandle, rc, hex(dptr));
    }

    /** @param other another AMD GPU's context; the same device can always access itself */
    @Override
    public boolean canAccessPeer(GpuRuntime other) {
        int peer = ((HipContext) other).device;
        if (peer == device) {
            return true;
        }
        Scratch s = enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipDeviceCanAccessPeer).invokeExact(s.out, device, peer));
        check(HipFunction.hipDeviceCanAccessPeer, rc, device + ", " + peer);
        return s.out.get(ValueLayout.JAVA_INT, 0) != 0;
    }

    /** @param other another AMD GPU's context; already enabled, or the same device, is fine */
    @Override
    public void enablePeerAccess(GpuRuntime other) {
        int peer = ((HipContext) other).device;
        if (peer == device) {
            return;
        }
        enter();
        int rc = HipRuntime.call(() -> (int) rt.handle(HipFunction.hipDeviceEnablePeerAccess).invokeExact(peer, 0));
        if (rc != HipFlags.ERROR_PEER_ACCESS_ALREADY_ENABLED) {
            check(HipFunction.hipDeviceEnablePeerAccess, rc, "device " + device + " -> device " + peer);
        }
    }

    private boolean ready(HipFunction f, int rc, String context) {
        if (rc == HipRuntime.SUCCESS || rc == HipFlags.ERROR_NOT_READY) {
            return rc == HipRuntime.SUCCESS;
        }
        check(f, rc, context);
        return false;
    }

    private void check(HipFunction f, int rc, String context) {
        rt.check(f, rc, context);
    }

    private static MemorySegment at(long address) {
        return MemorySegment.ofAddress(address);
    }

    private static String hex(long address) {
        return "0x" + Long.toHexString(address);
    }

    private static void positive(long bytes) {
        if (bytes <= 0) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "bytes = " + bytes + ", must be at least 1",
                    "allocate a positive number of bytes");
        }
    }

    @Override
    public String toString() {
        return "HipContext[device " + device + ", " + rt.library() + "]";
    }

    /** A thread's out-parameters: no allocation per call. */
    private static final class Scratch {
        /** Attributes {@link #pointerInfo} asks for, in {@code attributeIds} order. */
        static final int ATTRIBUTES = 3;
        private static final int[] IDS = {HipFlags.POINTER_ATTRIBUTE_MEMORY_TYPE,
            HipFlags.POINTER_ATTRIBUTE_DEVICE_ORDINAL, HipFlags.POINTER_ATTRIBUTE_IS_MANAGED};

        final MemorySegment out;
        final MemorySegment attributeIds;
        final MemorySegment attributeData;
        final MemorySegment attributeValues;
        final MemorySegment ipcHandle;
        final MemorySegment kernelParams;

        Scratch() {
            Arena arena = Arena.ofAuto(); // freed with the thread's scratch
            out = arena.allocate(8, 8);
            attributeIds = arena.allocate(4L * ATTRIBUTES, 4);
            attributeData = arena.allocate(8L * ATTRIBUTES, 8);
            attributeValues = arena.allocate(8L * ATTRIBUTES, 8);
            ipcHandle = arena.allocate(IPC_HANDLE_BYTES, 8);
            kernelParams = arena.allocate(8, 8);
            for (int i = 0; i < ATTRIBUTES; i++) {
                attributeIds.setAtIndex(ValueLayout.JAVA_INT, i, IDS[i]);
                attributeData.setAtIndex(ValueLayout.ADDRESS, i, attributeValues.asSlice(8L * i, 8));
            }
        }

        long outAddress() {
            return out.get(ValueLayout.ADDRESS, 0).address();
        }

        /** Zeroes the values, so an attribute the runtime leaves alone reads 0. */
        void prepareAttributes() {
            attributeValues.fill((byte) 0);
        }

        int attribute(int i) {
            return attributeValues.get(ValueLayout.JAVA_INT, 8L * i);
        }

        MemorySegment kernelParams(long argsAddress) {
            kernelParams.set(ValueLayout.ADDRESS, 0, MemorySegment.ofAddress(argsAddress));
            return kernelParams;
        }
    }
}
