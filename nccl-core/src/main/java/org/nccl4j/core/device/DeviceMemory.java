package org.nccl4j.core.device;

import java.lang.foreign.MemorySegment;
import java.util.function.LongConsumer;

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

    /**
     * @param address a device allocation's address
     * @param bytes   its size
     * @param free    frees it (given the address)
     * @return the allocation, freed by {@link #close()}
     */
    static DeviceMemory of(long address, long bytes, LongConsumer free) {
        MemorySegment segment = MemorySegment.ofAddress(address).reinterpret(bytes);
        return new DeviceMemory() {
            @Override
            public MemorySegment segment() {
                return segment;
            }

            @Override
            public void close() {
                free.accept(address);
            }
        };
    }
}
