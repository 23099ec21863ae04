package org.nccl4j.core.device;

import java.lang.foreign.MemorySegment;
import org.nccl4j.core.proto.Protocol;

/**
 * One end of a network connection nccl-core made for a device backend (NCCL's NET transport):
 * this end's protocol buffers (in device memory where GPU Direct RDMA is used) and its two
 * headers (laid out as {@link org.nccl4j.core.conn.ConnMem}), in memory from the backend's
 * {@link org.nccl4j.core.conn.ConnAllocator}, and the communicator's proxy thread moving the steps
 * between this end and the peer's. A sending kernel writes a step into its own buffer, its size
 * and tag into the receive header, then (Simple, LL128) the tail there, and waits for the head in the
 * send header; a receiving kernel announces the step's tag in the receive header, waits for the
 * tail there and publishes its head in the send header.
 */
public interface DeviceNetConn extends AutoCloseable {
    /**
     * @param p a protocol
     * @return this end's buffer for it: {@code NCCL_STEPS} slots
     */
    MemorySegment buff(Protocol p);

    /** @return the receive header: tail, step sizes, send tags, receive tags */
    MemorySegment recvHeader();

    /** @return the send header: head */
    MemorySegment sendHeader();

    /**
     * @return whether the proxy has sent everything this end's kernels posted (see
     *     {@link DeviceCommContext#awaitNetDrained})
     */
    boolean drained();

    /** Wakes the proxy thread, for a kernel that is about to use this connection. */
    void wake();

    /** Ends the proxy's work on this connection: once this returns, nothing touches its memory. */
    @Override
    void close();
}
