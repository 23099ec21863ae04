package org.nccl4j.core.conn;

import java.lang.foreign.MemorySegment;

/**
 * Where a connection's local memory (headers and protocol buffers) comes from: the host
 * engine's arena, or host memory a device backend's kernels reach (pinned and mapped into the
 * device's address space), so that the same NET connection and proxy serve both.
 */
@FunctionalInterface
public interface ConnAllocator {
    /**
     * @param bytes     how much
     * @param alignment its alignment, a power of two
     * @return zeroed memory, alive as long as the connection
     */
    MemorySegment allocate(long bytes, long alignment);
}
