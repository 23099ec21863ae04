package org.nccl4j.core.device.gpu.engine;

import java.nio.ByteBuffer;
import java.util.function.IntFunction;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.core.device.gpu.GpuRuntime;

/**
 * One block of a rank's connection memory: the FIFOs and control words that the peers of one
 * transport write into, described to them by a fixed-size descriptor that travels over the
 * bootstrap. Zeroed before it is described, so that no peer sees a FIFO before it is clean.
 */
sealed interface ConnRegion extends AutoCloseable permits DeviceConnRegion, ShmConnRegion {
    /** Control words of a connection pair: receive tail, send head, send step, receive step. */
    int CTL_BYTES = 32;
    int TAIL = 0;
    int HEAD = 8;
    int SEND_STEP = 16;
    int RECV_STEP = 24;
    /** A descriptor: device ordinal, an address, then what another process needs to map it. */
    int DESCRIPTOR_BYTES = 16 + GpuRuntime.IPC_HANDLE_BYTES;
    /** FIFOs start on 4 KiB boundaries. */
    long FIFO_ALIGN = 4096;

    /** @return {@code at} rounded up to where a FIFO may start */
    static long fifoAligned(long at) {
        return (at + FIFO_ALIGN - 1) / FIFO_ALIGN * FIFO_ALIGN;
    }

    /** @return the region's device address in this rank's context */
    long base();

    /**
     * Writes this region's descriptor.
     *
     * @param out      where, {@link #DESCRIPTOR_BYTES} of it
     * @param otherProcesses whether a peer runs in another process (then it carries what that peer maps)
     */
    void describe(ByteBuffer out, boolean otherProcesses);

    /**
     * Maps the region of this kind of a peer (once per peer: {@link ConnMemory} keeps the answer).
     *
     * @param comm       the communicator
     * @param peer       the peer's rank
     * @param descriptor its descriptor (position at its start, left unchanged)
     * @param contexts   this process's contexts by ordinal, for peer access
     * @return the address at which this rank's kernels reach the peer's region (in this rank's context)
     */
    long map(DeviceCommContext comm, int peer, ByteBuffer descriptor, IntFunction<GpuRuntime> contexts);

    /** Every peer has mapped this region: a name other processes looked it up by can go. */
    void peersMapped();

    /** Unmaps the peers' regions and frees this one; the kernels that use them must have ended. */
    @Override
    void close();
}
