package org.nccl4j.gpu.cuda.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.gpu.cuda.driver.CudaContext;

/**
 * The connections of Send/Recv (NCCL's p2p channels), apart from the rings': for every other
 * rank, a receive FIFO of {@code NCCL_STEPS} slots in this rank's device memory and control words
 * (tail, head, the two step counts), so that each ordered pair of ranks has a connection of its
 * own. NCCL connects a pair at its first send/recv; here every pair is connected at init, because
 * the device context's bootstrap exchange is collective (one AllGather). For each peer the kernels
 * read two {@code n4j_conn}s ({@code sendrecv.h}): index {@code 2 * peer} sends to it,
 * {@code 2 * peer + 1} receives from it. Send/Recv runs the Simple protocol only, as the host
 * backend's: the other protocols' FIFO pointers are null.
 */
final class PeerChannels implements AutoCloseable {
    /** Control words per peer: tail, head, send step, receive step. */
    private static final int CTL_BYTES = 32;
    private static final int TAIL = 0;
    private static final int HEAD = 8;
    private static final int SEND_STEP = 16;
    private static final int RECV_STEP = 24;

    private final CudaContext ctx;
    private final List<Long> allocations;
    private final long channelsAddress;
    /** Per peer, why it cannot be reached ({@code null}: connected). */
    private final String[] unreachable;

    private PeerChannels(CudaContext ctx, List<Long> allocations, long channelsAddress, String[] unreachable) {
        this.ctx = ctx;
        this.allocations = allocations;
        this.channelsAddress = channelsAddress;
        this.unreachable = unreachable;
    }

    /** @return the device address of the {@code 2 * nranks} connections */
    long address() {
        return channelsAddress;
    }

    /**
     * @param peer another rank
     * @return why sends to and receives from it cannot run, or {@code null} when they can
     */
    String unreachable(int peer) {
        return unreachable[peer];
    }

    /**
     * Allocates this rank's receiving side towards every peer, exchanges the addresses with every
     * rank (one bootstrap AllGather, bounded by the init deadline) and writes the channel array.
     *
     * @param ctx       this rank's context
     * @param comm      the communicator being built
     * @param stepBytes bytes per FIFO slot (the Simple protocol's, as the host backend's p2p)
     * @param contexts  the contexts of this process's devices by ordinal, for peer access
     */
    static PeerChannels connect(CudaContext ctx, DeviceCommContext comm, int stepBytes,
                                IntFunction<CudaContext> contexts) {
        int n = comm.nranks();
        int me = comm.rank();
        List<Long> mine = new ArrayList<>();
        try {
            long ctl = ChannelConns.alloc(ctx, mine, (long) CTL_BYTES * n);
            ctx.memsetD8(ctl, 0, (long) CTL_BYTES * n, 0);
            long[] fifo = new long[n];
            for (int q = 0; q < n; q++) {
                if (q != me && comm.inThisProcess(q)) {
                    fifo[q] = ChannelConns.alloc(ctx, mine, (long) ChannelConns.STEPS * stepBytes);
                }
            }
            // Blob: device ordinal, then per rank q the FIFO receiving from q and the control words towards q.
            ByteBuffer blob = ByteBuffer.allocate(8 + 16 * n);
            blob.putLong(ctx.device());
            for (int q = 0; q < n; q++) {
                blob.putLong(fifo[q]).putLong(ctl + (long) CTL_BYTES * q);
            }
            byte[] all = comm.allGather(blob.array());
            int stride = blob.capacity();
            String[] unreachable = new String[n];
            try (Arena arena = Arena.ofConfined()) {
                long bytes = 2L * ChannelConns.CONN_BYTES * n;
                MemorySegment host = arena.allocate(bytes, 8);
                for (int p = 0; p < n; p++) {
                    if (p == me) {
                        unreachable[p] = "this rank (a send to self is a copy)";
                        continue;
                    }
                    ByteBuffer pb = ByteBuffer.wrap(all, p * stride, stride).slice();
                    unreachable[p] = reason(ctx, comm, p, (int) pb.getLong(0), contexts);
                    if (unreachable[p] != null) {
                        continue;
                    }
                    long peerFifo = pb.getLong(8 + 16 * me);
                    long peerCtl = pb.getLong(16 + 16 * me);
                    long myCtl = ctl + (long) CTL_BYTES * p;
                    long send = 2L * ChannelConns.CONN_BYTES * p;
                    // Sending: into p's FIFO and tail; our head (p writes it as it consumes); our send step.
                    conn(host, send, peerFifo, peerCtl + TAIL, myCtl + HEAD, myCtl + SEND_STEP);
                    // Receiving: our FIFO and tail (p writes them); p's head; our receive step.
                    conn(host, send + ChannelConns.CONN_BYTES, fifo[p], myCtl + TAIL, peerCtl + HEAD, myCtl + RECV_STEP);
                }
                long channels = ChannelConns.alloc(ctx, mine, bytes);
                ctx.copyHtoD(channels, host.address(), bytes, 0);
                return new PeerChannels(ctx, mine, channels, unreachable);
            }
        } catch (RuntimeException | Error e) {
            mine.forEach(ctx::memFree);
            throw e;
        }
    }

    /** Writes one {@code n4j_conn}: the Simple FIFO (the others null), tail, head, step. */
    private static void conn(MemorySegment host, long at, long simpleFifo, long tail, long head, long step) {
        host.set(ValueLayout.JAVA_LONG, at + 8L * Protocol.SIMPLE.code(), simpleFifo);
        host.set(ValueLayout.JAVA_LONG, at + 24, tail);
        host.set(ValueLayout.JAVA_LONG, at + 32, head);
        host.set(ValueLayout.JAVA_LONG, at + 40, step);
    }

    private static String reason(CudaContext ctx, DeviceCommContext comm, int peer, int device,
                                 IntFunction<CudaContext> contexts) {
        if (!comm.inThisProcess(peer)) {
            return "rank " + peer + " runs in another process; the cuda backend connects ranks of one process only so far";
        }
        if (device != ctx.device()) {
            CudaContext other = contexts.apply(device);
            if (!ctx.canAccessPeer(other)) {
                return "GPU " + ctx.device() + " cannot access GPU " + device + " of rank " + peer;
            }
            ctx.enablePeerAccess(other);
        }
        return null;
    }

    /**
     * @param rank this rank
     * @param peer the rank a send or receive names
     * @throws NcclException INVALID_USAGE when this rank has no connection to it
     */
    void check(int rank, int peer) {
        if (peer != rank && unreachable[peer] != null) {
            throw NcclException.of(Result.INVALID_USAGE, "rank " + rank + " cannot send to or receive from rank "
                    + peer + ": " + unreachable[peer], "run the ranks as threads of one JVM (Nccl.commInitAll) on GPUs"
                    + " with peer access, or use the host backend");
        }
    }

    /** Frees the device memory; the kernels that use it must have ended. */
    @Override
    public void close() {
        allocations.forEach(ctx::memFree);
        allocations.clear();
    }
}
