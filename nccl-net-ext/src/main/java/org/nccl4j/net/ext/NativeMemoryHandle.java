package org.nccl4j.net.ext;

import java.lang.foreign.MemorySegment;
import org.nccl4j.net.spi.MemoryHandle;

/** A registration ({@code void *mhandle}, possibly NULL when a plugin needs none) of a buffer with a comm. */
final class NativeMemoryHandle implements MemoryHandle {
    final NativeComm comm;
    final MemorySegment ptr;
    final long address;
    final long size;
    volatile boolean released;

    NativeMemoryHandle(NativeComm comm, MemorySegment ptr, long address, long size) {
        this.comm = comm;
        this.ptr = ptr;
        this.address = address;
        this.size = size;
    }

    /**
     * @param data a buffer
     * @return whether it lies inside the registered range
     */
    boolean covers(MemorySegment data) {
        long a = data.address();
        return data.byteSize() == 0 || (a >= address && a + data.byteSize() <= address + size);
    }
}
