package org.nccl4j.core.device.gpu.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.core.device.DeviceNetLink;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.device.gpu.GpuRuntime;

/**
 * The connections of Send/Recv (NCCL's p2p channels), apart from the rings': for every other
 * rank, a receive FIFO of {@code NCCL_STEPS} slots and control words (tail, head, the two step
 * counts) in this rank's {@link ConnMemory} (device memory for P2P peers, a registered
 * {@code /dev/shm} segment for SHM peers; in P2P read mode the FIFO carries this rank's sends to
 * that peer instead, which the peer reads) or, for peers reached through the network, a pair of
 * {@link NetConns} ends, so that each ordered pair of ranks has a connection of its
 * own. NCCL connects a pair at its first send/recv; here every pair is connected at init, because
 * the device context's bootstrap exchange is collective (one AllGather). For each peer the kernels
 * read two {@code n4j_conn}s ({@code sendrecv.h}): index {@code 2 * peer} sends to it,
 * {@code 2 * peer + 1} receives from it. Send/Recv runs the Simple protocol only, as the host
 * backend's: the other protocols' FIFO pointers are null.
 */
final class PeerChannels implements AutoCloseable {
    private final GpuRuntime ctx;
    /** Keeps these NET setup messages apart from ChannelConns' on the bootstrap. */
    private static final int NET_TAG = 0xd1;
    private final ConnMemory memory;
    private final NetConns net;
    private final List<Long> allocations;
    private final long channelsAddress;
    /** Per peer, why it cannot be reached ({@code null}: connected). */
    private final String[] unreachable;

    private PeerChannels(GpuRuntime ctx, ConnMemory memory, NetConns net, List<Long> allocations,
                         long channelsAddress, String[] unreachable) {
        this.ctx = ctx;
        this.memory = memory;
        this.net = net;
        this.allocations = allocations;
        this.channelsAddress = channelsAddress;
        this.unreachable = unreachable;
    }

    /** Wakes the network proxy, if any connection goes through it: a kernel was launched. */
    void wake() {
        net.wake();
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
    static PeerChannels connect(GpuRuntime ctx, DeviceCommContext comm, int stepBytes,
                                IntFunction<GpuRuntime> contexts) {
        int n = comm.nranks();
        int me = comm.rank();
        // This rank's regions: per other rank the FIFO receiving from it (4 KiB aligned), then the
        // control words towards it, in the region of that rank's transport. A rank reachable only
        // through the network gets none: sends to it are refused.
        ConnMemory memory = new ConnMemory(comm);
        long fifoBytes = ConnRegion.fifoAligned((long) ChannelConns.STEPS * stepBytes);
        long[] fifo = new long[n];
        long[] ctl = new long[n];
        String[] unreachable = new String[n];
        List<DeviceNetLink> netLinks = new ArrayList<>();
        for (int q = 0; q < n; q++) {
            fifo[q] = -1;
            ctl[q] = -1;
            if (q == me) {
                unreachable[q] = "this rank (a send to self is a copy)";
            } else if (memory.net(q)) {
                netLinks.add(new DeviceNetLink(0, q, true));
                netLinks.add(new DeviceNetLink(0, q, false));
            } else {
                fifo[q] = memory.reserve(q, fifoBytes);
            }
        }
        for (int q = 0; q < n; q++) {
            if (fifo[q] >= 0) {
                ctl[q] = memory.reserve(q, ConnRegion.CTL_BYTES);
            }
        }
        memory.allocate(ctx);
        List<Long> mine = new ArrayList<>();
        NetConns net = null;
        try {
            net = NetConns.connect(ctx, comm, netLinks, NET_TAG);
            // Blob: the regions' descriptors, then per rank q the offsets of the FIFO receiving from q
            // and of the control words towards q.
            ByteBuffer blob = ByteBuffer.allocate(ConnMemory.DESCRIPTORS_BYTES + 16 * n);
            memory.describe(blob);
            for (int q = 0; q < n; q++) {
                blob.putLong(fifo[q]).putLong(ctl[q]);
            }
            byte[] all = comm.allGather(blob.array());
            int stride = blob.capacity();
            try (Arena arena = Arena.ofConfined()) {
                long bytes = 2L * ChannelConns.CONN_BYTES * n;
                MemorySegment host = arena.allocate(bytes, 8);
                for (int p = 0; p < n; p++) {
                    long send = 2L * ChannelConns.CONN_BYTES * p;
                    if (unreachable[p] != null) {
                        continue;
                    }
                    if (net.has(0, p)) {
                        net.end(0, p, true).write(host, send);
                        net.end(0, p, false).write(host, send + ChannelConns.CONN_BYTES);
                        continue;
                    }
                    ByteBuffer pb = ByteBuffer.wrap(all, p * stride, stride).slice();
                    long theirs;
                    try {
                        theirs = memory.map(p, pb, contexts);
                    } catch (NcclException e) {
                        unreachable[p] = e.getMessage();
                        continue;
                    }
                    int o = ConnMemory.DESCRIPTORS_BYTES + 16 * me;
                    long peerFifo = theirs + pb.getLong(o);
                    long peerCtl = theirs + pb.getLong(o + 8);
                    long myCtl = memory.base(p) + ctl[p];
                    long myFifo = memory.base(p) + fifo[p];
                    // P2P read mode: each rank's FIFO for p carries its sends to p, which p reads.
                    boolean read = comm.p2pRead(p);
                    // Sending: into p's FIFO (read: ours) and p's tail; our head (p writes it as it consumes); our send step.
                    ConnEnd.direct(simple(read ? myFifo : peerFifo), peerCtl + ConnRegion.TAIL, myCtl + ConnRegion.HEAD,
                            myCtl + ConnRegion.SEND_STEP).write(host, send);
                    // Receiving: our FIFO (read: p's) and our tail (p writes them); p's head; our receive step.
                    ConnEnd.direct(simple(read ? peerFifo : myFifo), myCtl + ConnRegion.TAIL, peerCtl + ConnRegion.HEAD,
                            myCtl + ConnRegion.RECV_STEP).write(host, send + ChannelConns.CONN_BYTES);
                }
                long channels = ChannelConns.alloc(ctx, mine, bytes);
                ctx.copyHtoD(channels, host.address(), bytes, 0);
                memory.peersMapped();
                return new PeerChannels(ctx, memory, net, mine, channels, unreachable);
            }
        } catch (RuntimeException | Error e) {
            mine.forEach(ctx::memFree);
            if (net != null) {
                net.close();
            }
            memory.close();
            throw e;
        }
    }

    /** @return FIFO addresses by protocol: Simple's at {@code fifo}, the others null (Send/Recv runs Simple) */
    private static long[] simple(long fifo) {
        long[] a = new long[Protocol.values().length];
        a[Protocol.SIMPLE.code()] = fifo;
        return a;
    }

    /**
     * @param rank this rank
     * @param peer the rank a send or receive names
     * @throws NcclException INVALID_USAGE when this rank has no connection to it
     */
    void check(int rank, int peer) {
        if (peer != rank && unreachable[peer] != null) {
            throw NcclException.of(Result.INVALID_USAGE, "rank " + rank + " cannot send to or receive from rank "
                    + peer + ": " + unreachable[peer], "run the ranks on GPUs with peer access (one GPU, NVLink or a"
                    + " common PCIe switch), or use the host backend");
        }
    }

    /** Frees the device memory; the kernels that use it must have ended. */
    @Override
    public void close() {
        allocations.forEach(ctx::memFree);
        allocations.clear();
        net.close();
        memory.close();
    }
}
