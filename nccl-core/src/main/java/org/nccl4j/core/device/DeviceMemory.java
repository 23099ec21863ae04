package org.nccl4j.core.device;

import java.lang.foreign.MemorySegment;

/**
 * Device memory a backend lends init for a moment (NCCL's GPU Direct RDMA probe registers it with
 * a network): a segment of its device address, which Java never dereferences.
 */
public interface DeviceMemory extends AutoCloseable {
    /** @return the memory, as its device address and size */
    MemorySegment segment();

    /** Frees it. */
    @Override
    void close();
}
