package org.nccl4j.core.device.gpu;

/**
 * One device's context of a GPU runtime, as the GPU engine uses it. Every call makes the context
 * current on the calling thread first; a failing call throws
 * {@link org.nccl4j.NcclException} with {@link org.nccl4j.Result#UNHANDLED_DEVICE_ERROR} naming
 * the call and the runtime's error. Stream 0 is the legacy default stream.
 */
public interface GpuRuntime {
    /** Bytes of an IPC memory handle ({@code CU_IPC_HANDLE_SIZE}, {@code HIP_IPC_HANDLE_SIZE}). */
    int IPC_HANDLE_BYTES = 64;

    /** @return the device ordinal */
    int device();

    /**
     * @param bytes how much, at least 1
     * @return the device pointer
     */
    long memAlloc(long bytes);

    /** @param dptr a pointer from {@link #memAlloc} */
    void memFree(long dptr);

    /**
     * Sets {@code bytes} bytes to {@code value}, asynchronously on {@code stream}.
     *
     * @param dptr   device pointer
     * @param value  the byte value (its low 8 bits)
     * @param bytes  how many
     * @param stream the stream
     */
    void memsetD8(long dptr, int value, long bytes, long stream);

    /**
     * Host to device: with stream 0 it returns once the data is on the device; with another it
     * is queued there.
     *
     * @param dptr        destination device pointer
     * @param hostAddress source host address
     * @param bytes       how many
     * @param stream      0, or the stream to queue it on
     */
    void copyHtoD(long dptr, long hostAddress, long bytes, long stream);

    /**
     * Device to host, as {@link #copyHtoD}.
     *
     * @param hostAddress destination host address
     * @param dptr        source device pointer
     * @param bytes       how many
     * @param stream      0, or the stream to queue it on
     */
    void copyDtoH(long hostAddress, long dptr, long bytes, long stream);

    /**
     * Device to device, as {@link #copyHtoD}.
     *
     * @param dst    destination device pointer
     * @param src    source device pointer
     * @param bytes  how many
     * @param stream 0, or the stream to queue it on
     */
    void copyDtoD(long dst, long src, long bytes, long stream);

    /**
     * @param bytes how much, at least 1
     * @return the host address of zeroed pinned host memory every context can use, mapped into
     *     the device's address space ({@link #devicePointerOf})
     */
    long hostAllocMapped(long bytes);

    /**
     * @param hostAddress memory from {@link #hostAllocMapped} or {@link #hostRegister}
     * @return the address at which this context's device sees it
     */
    long devicePointerOf(long hostAddress);

    /**
     * Page-locks host memory this process mapped (a {@code /dev/shm} segment) for every context
     * and maps it into the device's address space, as NCCL's SHM transport does.
     *
     * @param hostAddress where it starts, page aligned
     * @param bytes       how much, at least 1
     */
    void hostRegister(long hostAddress, long bytes);

    /** @param hostAddress memory given to {@link #hostRegister} */
    void hostUnregister(long hostAddress);

    /** @param hostAddress memory from {@link #hostAllocMapped} */
    void freeHost(long hostAddress);

    /**
     * @param address any address
     * @return what the runtime knows of it; memory type 0 when it is not the runtime's
     */
    GpuPointer pointerInfo(long address);

    /** @return a new stream that does not synchronise with stream 0 */
    long streamCreate();

    /** @param stream a stream from {@link #streamCreate} */
    void streamDestroy(long stream);

    /** @param stream waits until all its work is done */
    void streamSynchronize(long stream);

    /**
     * @param stream a stream
     * @return whether all its work is done
     */
    boolean streamQuery(long stream);

    /**
     * Later work on {@code stream} waits for {@code event}'s last record; the caller does not wait.
     *
     * @param stream the waiting stream
     * @param event  the event
     */
    void streamWaitEvent(long stream, long event);

    /**
     * @param timing whether {@link #eventElapsedMillis} may use it (untimed events are cheaper)
     * @return a new event
     */
    long eventCreate(boolean timing);

    /**
     * @param event  the event
     * @param stream the stream whose work so far it marks
     */
    void eventRecord(long event, long stream);

    /**
     * @param event an event
     * @return whether the work it marks is done
     */
    boolean eventQuery(long event);

    /** @param event waits until the work it marks is done */
    void eventSynchronize(long event);

    /**
     * @param start an event made with timing, recorded and done
     * @param end   another, recorded after it
     * @return the time between them in milliseconds
     */
    float eventElapsedMillis(long start, long end);

    /** @param event an event from {@link #eventCreate} */
    void eventDestroy(long event);

    /**
     * @param image the runtime's code image (a CUDA fatbin, cubin or PTX; an AMD code object)
     * @return the loaded module
     */
    long moduleLoad(byte[] image);

    /** @param module a module from {@link #moduleLoad}; its functions are no longer usable */
    void moduleUnload(long module);

    /**
     * @param module a loaded module
     * @param name   a kernel's entry name ({@code extern "C"}, so not mangled)
     * @return the function handle
     */
    long function(long module, String name);

    /**
     * Queues a kernel on a stream, one-dimensional grid and block. The kernel takes exactly one
     * parameter, a struct, packed in host memory at {@code argsAddress} as the kernel lays it out
     * (copied before this returns).
     *
     * @param function    the kernel
     * @param gridX       blocks
     * @param blockX      threads per block
     * @param sharedBytes dynamic shared memory per block
     * @param stream      the stream
     * @param argsAddress host address of the packed arguments (ignored when argsBytes is 0)
     * @param argsBytes   their size
     */
    void launch(long function, int gridX, int blockX, int sharedBytes, long stream, long argsAddress, long argsBytes);

    /**
     * @param dptr the start of an allocation from {@link #memAlloc}
     * @return its IPC handle ({@link #IPC_HANDLE_BYTES} bytes) for another process's {@link #ipcOpen}
     */
    byte[] ipcHandle(long dptr);

    /**
     * @param handle another process's {@link #ipcHandle}
     * @return the memory's address in this context (peer access enabled as needed)
     */
    long ipcOpen(byte[] handle);

    /** @param dptr an address from {@link #ipcOpen} */
    void ipcClose(long dptr);

    /**
     * @param peer another device's context of the same runtime
     * @return whether this device can access the peer's memory directly (always for the same device)
     */
    boolean canAccessPeer(GpuRuntime peer);

    /**
     * Lets this context access the peer's memory; already enabled, or the same device, is fine.
     *
     * @param peer another device's context of the same runtime
     */
    void enablePeerAccess(GpuRuntime peer);
}
