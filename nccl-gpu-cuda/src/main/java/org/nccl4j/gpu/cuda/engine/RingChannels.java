package org.nccl4j.gpu.cuda.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.gpu.cuda.driver.CudaContext;

/**
 * The device side of a communicator's rings (NCCL's P2P transport between ranks of one process):
 * per channel, this rank's receive FIFO ({@code NCCL_STEPS} slots) and control words in its own
 * device memory, the peers' addresses exchanged over the bootstrap, and the {@code n4j_channel}
 * array the kernels read ({@code common.h}). Sender and receiver use each other's memory
 * directly: same context, or peer access between two GPUs.
 */
final class RingChannels implements AutoCloseable {
    static final int STEPS = 8;
    /** {@code struct n4j_channel}: two {@code n4j_conn} of 4 pointers, then the ring pointer. */
    static final int CHANNEL_BYTES = 72;
    /** Control words: receive tail, send head, send step, receive step. */
    private static final int CTL_BYTES = 32;
    private static final int TAIL = 0;
    private static final int HEAD = 8;
    private static final int SEND_STEP = 16;
    private static final int RECV_STEP = 24;

    private final CudaContext ctx;
    private final List<Long> allocations = new ArrayList<>();
    private final long channelsAddress;
    private final int nChannels;

    private RingChannels(CudaContext ctx, long channelsAddress, int nChannels, List<Long> allocations) {
        this.ctx = ctx;
        this.channelsAddress = channelsAddress;
        this.nChannels = nChannels;
        this.allocations.addAll(allocations);
    }

    /** @return the device address of the {@code n4j_channel} array */
    long address() {
        return channelsAddress;
    }

    int count() {
        return nChannels;
    }

    /**
     * Allocates this rank's side, exchanges addresses with every rank and builds the channel array.
     *
     * @param ctx        this rank's context
     * @param comm       the communicator being built
     * @param nChannels  channels to connect (the first of comm.rings())
     * @param stepBytes  bytes per FIFO slot
     * @param contexts   the contexts of this process's devices by ordinal, for peer access
     */
    static RingChannels connect(CudaContext ctx, DeviceCommContext comm, int nChannels, int stepBytes,
                                java.util.function.IntFunction<CudaContext> contexts) {
        int n = comm.nranks();
        List<Long> mine = new ArrayList<>();
        try {
            long[] fifo = new long[nChannels];
            long[] ctl = new long[nChannels];
            long[] ring = new long[nChannels];
            for (int c = 0; c < nChannels; c++) {
                fifo[c] = alloc(ctx, mine, (long) STEPS * stepBytes);
                ctl[c] = alloc(ctx, mine, CTL_BYTES);
                ctx.memsetD8(ctl[c], 0, CTL_BYTES, 0);
                ring[c] = alloc(ctx, mine, 4L * n);
            }
            // Blob: device ordinal, then per channel the FIFO and control addresses.
            ByteBuffer blob = ByteBuffer.allocate(8 + 16 * nChannels);
            blob.putLong(ctx.device());
            for (int c = 0; c < nChannels; c++) {
                blob.putLong(fifo[c]).putLong(ctl[c]);
            }
            byte[] all = comm.allGather(blob.array());
            int stride = blob.capacity();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment host = arena.allocate((long) CHANNEL_BYTES * nChannels, 8);
                for (int c = 0; c < nChannels; c++) {
                    int[] r = comm.rings().get(c);
                    int next = r[1];
                    int prev = r[n - 1];
                    ByteBuffer nb = ByteBuffer.wrap(all, next * stride, stride).slice();
                    ByteBuffer pb = ByteBuffer.wrap(all, prev * stride, stride).slice();
                    peer(ctx, comm, next, (int) nb.getLong(0), contexts);
                    peer(ctx, comm, prev, (int) pb.getLong(0), contexts);
                    long nextFifo = nb.getLong(8 + 16 * c);
                    long nextCtl = nb.getLong(16 + 16 * c);
                    long prevCtl = pb.getLong(16 + 16 * c);
                    long base = (long) CHANNEL_BYTES * c;
                    // send: into next's FIFO and tail; our head (next writes it); our send step.
                    host.set(ValueLayout.JAVA_LONG, base, nextFifo);
                    host.set(ValueLayout.JAVA_LONG, base + 8, nextCtl + TAIL);
                    host.set(ValueLayout.JAVA_LONG, base + 16, ctl[c] + HEAD);
                    host.set(ValueLayout.JAVA_LONG, base + 24, ctl[c] + SEND_STEP);
                    // recv: our FIFO and tail (prev writes them); prev's head; our receive step.
                    host.set(ValueLayout.JAVA_LONG, base + 32, fifo[c]);
                    host.set(ValueLayout.JAVA_LONG, base + 40, ctl[c] + TAIL);
                    host.set(ValueLayout.JAVA_LONG, base + 48, prevCtl + HEAD);
                    host.set(ValueLayout.JAVA_LONG, base + 56, ctl[c] + RECV_STEP);
                    host.set(ValueLayout.JAVA_LONG, base + 64, ring[c]);
                    MemorySegment ringHost = arena.allocate(4L * n, 4);
                    for (int k = 0; k < n; k++) {
                        ringHost.setAtIndex(ValueLayout.JAVA_INT, k, r[k]);
                    }
                    ctx.copyHtoD(ring[c], ringHost.address(), 4L * n, 0);
                }
                long channels = alloc(ctx, mine, host.byteSize());
                ctx.copyHtoD(channels, host.address(), host.byteSize(), 0);
                return new RingChannels(ctx, channels, nChannels, mine);
            }
        } catch (RuntimeException | Error e) {
            mine.forEach(ctx::memFree);
            throw e;
        }
    }

    static long alloc(CudaContext ctx, List<Long> mine, long bytes) {
        long a = ctx.memAlloc(bytes);
        mine.add(a);
        return a;
    }

    /** A ring neighbour must be in this process, on this GPU or one it can reach by peer access. */
    private static void peer(CudaContext ctx, DeviceCommContext comm, int peer, int device,
                             java.util.function.IntFunction<CudaContext> contexts) {
        if (!comm.inThisProcess(peer)) {
            throw NcclException.of(Result.INVALID_USAGE, "rank " + comm.rank() + ": ring neighbour rank " + peer
                    + " runs in another process; the cuda backend connects ranks of one process only so far",
                    "run the ranks as threads of one JVM (Nccl.commInitAll), or use the host backend");
        }
        if (device != ctx.device()) {
            CudaContext other = contexts.apply(device);
            if (!ctx.canAccessPeer(other)) {
                throw NcclException.of(Result.INVALID_USAGE, "rank " + comm.rank() + " on GPU " + ctx.device()
                        + " cannot access GPU " + device + " of ring neighbour rank " + peer,
                        "the GPUs need peer access (NVLink or a common PCIe switch)");
            }
            ctx.enablePeerAccess(other);
        }
    }

    /** Frees the device memory; the kernels that use it must have ended. */
    @Override
    public void close() {
        allocations.forEach(ctx::memFree);
        allocations.clear();
    }
}
