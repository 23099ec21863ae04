package org.nccl4j.core.proxy;

import java.lang.foreign.MemorySegment;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.net.spi.MemoryHandle;

/**
 * A NET connection's protocol buffers as the network sees them (NCCL's {@code buffers[LOC_*]}
 * and {@code mhandlesProto}): by protocol, its {@code NCCL_STEPS} slots, the registration that
 * covers them, and whether they lie in GPU memory (GPU Direct RDMA: the proxy then never reads
 * them, it trusts the kernel's tail, and flushes Simple receives before the kernel reads them).
 *
 * @param buffs   by protocol code: the buffer
 * @param handles by protocol code: its registration with the connection's endpoint
 * @param device  by protocol code: whether it is GPU memory
 */
public record NetBuffers(MemorySegment[] buffs, MemoryHandle[] handles, boolean[] device) {
    /**
     * @param p a protocol
     * @return its buffer
     */
    public MemorySegment buff(Protocol p) {
        return buffs[p.code()];
    }

    /**
     * @param p a protocol
     * @return the registration covering its buffer
     */
    public MemoryHandle handle(Protocol p) {
        return handles[p.code()];
    }

    /**
     * @param p a protocol
     * @return whether its buffer is GPU memory
     */
    public boolean onDevice(Protocol p) {
        return device[p.code()];
    }
}
