package org.nccl4j.core.conn;

import java.lang.foreign.MemorySegment;

/**
 * Where a connection's local memory (headers and protocol buffers) comes from: the host
 * engine's arena, or host memory a device backend's kernels reach (pinned and mapped into the
 * device's address space), so that the same NET connection and proxy serve both; and, for GPU
 * Direct RDMA, the device's own memory.
 */
@FunctionalInterface
public interface ConnAllocator {
    /**
     * @param bytes     how much
     * @param alignment its alignment, a power of two
     * @return zeroed host memory, alive as long as the connection
     */
    MemorySegment allocate(long bytes, long alignment);

    /**
     * Device memory for the protocol buffers a network reads or writes directly (GPU Direct
     * RDMA): a segment of its device address that Java never dereferences, only hands to the
     * network plugin as {@code NCCL_PTR_CUDA} memory.
     *
     * @param bytes how much
     * @return zeroed device memory, alive as long as the connection
     * @throws UnsupportedOperationException where there is no device memory (the host engine)
     */
    default MemorySegment allocateDevice(long bytes) {
        throw new UnsupportedOperationException("host connection memory only: no GPU Direct RDMA");
    }
}
