package org.nccl4j.core.device.gpu.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.device.DeviceChannel;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.core.device.DeviceNetLink;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.device.gpu.GpuRuntime;

/**
 * The device side of a communicator's channels (NCCL's P2P and SHM transports): for every ring and tree
 * neighbour of a channel, this rank's receive FIFOs (one per protocol, {@code NCCL_STEPS} slots each, as NCCL's {@code ncclRecvMem.buffs}) and control words
 * in its own device memory; the peers' addresses exchanged over the bootstrap; and the
 * {@code n4j_channel} array the kernels read ({@code common.h}). A peer that is both a ring and a
 * tree neighbour has one connection per direction, shared by both, as NCCL keys connections by
 * (channel, peer). A rank's FIFOs and control words lie in its {@link ConnMemory}: device memory
 * for P2P peers (used directly in this process, through the runtime's IPC from another), a registered
 * {@code /dev/shm} segment for SHM peers.
 */
final class ChannelConns implements AutoCloseable {
    static final int STEPS = 8;
    /** {@code struct n4j_conn}: three FIFOs, tail, head, step. */
    static final int CONN_BYTES = 64;
    /** {@code struct n4j_channel}: ten connections, the ring pointer, parent and child count. */
    static final int CHANNEL_BYTES = 656;
    private static final int RING_SEND = 0;
    private static final int RING_RECV = 64;
    private static final int UP_SEND = 128;
    private static final int UP_RECV = 192;
    private static final int DOWN_SEND = 256;
    private static final int DOWN_RECV = 448;
    private static final int RING = 640;
    private static final int TREE_UP = 648;
    private static final int N_TREE_DOWN = 652;
    /** Keeps the channels' NET setup messages apart from PeerChannels' on the bootstrap. */
    private static final int NET_TAG = 0xd0;

    private final GpuRuntime ctx;
    private final ConnMemory memory;
    private final NetConns net;
    private final List<Long> allocations = new ArrayList<>();
    private final long channelsAddress;

    private ChannelConns(GpuRuntime ctx, ConnMemory memory, NetConns net, long channelsAddress, List<Long> allocations) {
        this.ctx = ctx;
        this.memory = memory;
        this.net = net;
        this.channelsAddress = channelsAddress;
        this.allocations.addAll(allocations);
    }

    /** Wakes the network proxy, if any connection goes through it: a kernel was launched. */
    void wake() {
        net.wake();
    }

    /** @return the device address of the {@code n4j_channel} array */
    long address() {
        return channelsAddress;
    }

    /** The FIFOs of one receiving connection: each protocol's buffer, 4 KiB aligned, LL first (NCCL's order). */
    record FifoLayout(long[] offsets, long bytes) {
        /** @return each protocol's FIFO address, for connection FIFOs starting at {@code base} */
        long[] at(long base) {
            long[] a = new long[offsets.length];
            for (int p = 0; p < a.length; p++) {
                a[p] = base + offsets[p];
            }
            return a;
        }

        /**
         * A connection's FIFOs: the receiver's ({@code receiver}, the FIFOs it reserved for the
         * sender), except in P2P read mode the Simple one, which is the sender's (the FIFOs it
         * reserved for the receiver hold it, their Simple part otherwise unused in that direction).
         *
         * @param receiver the FIFOs the receiver reserved for this pair
         * @param sender   the FIFOs the sender reserved for this pair
         * @param read     NCCL's P2P read mode for the pair
         */
        long[] of(long receiver, long sender, boolean read) {
            long[] a = at(receiver);
            if (read) {
                a[Protocol.SIMPLE.code()] = sender + offsets[Protocol.SIMPLE.code()];
            }
            return a;
        }

        static FifoLayout of(DeviceCommContext comm) {
            long[] off = new long[Protocol.values().length];
            long at = 0;
            for (Protocol p : Protocol.values()) {
                off[p.code()] = at;
                at += (long) STEPS * comm.stepBytes(p);
                at = ConnRegion.fifoAligned(at);
            }
            return new FifoLayout(off, at);
        }
    }

    /**
     * Allocates this rank's side of every channel's connections, exchanges addresses with every
     * rank and builds the channel array.
     *
     * @param ctx      this rank's context
     * @param comm     the communicator being built
     * @param contexts the contexts of this process's devices by ordinal, for peer access
     */
    static ChannelConns connect(GpuRuntime ctx, DeviceCommContext comm, IntFunction<GpuRuntime> contexts) {
        int n = comm.nranks();
        int me = comm.rank();
        List<DeviceChannel> channels = comm.channels();
        int nc = channels.size();
        FifoLayout layout = FifoLayout.of(comm);
        // Offsets in this rank's region of the peer's transport, per channel and peer: the FIFOs
        // receiving from it (4 KiB aligned, first), then the control words towards it; -1 where no link.
        // Peers reached through the network get a send and a receive end per channel instead.
        ConnMemory memory = new ConnMemory(comm);
        long[][] fifo = new long[nc][n];
        long[][] ctl = new long[nc][n];
        List<DeviceNetLink> netLinks = new ArrayList<>();
        for (int c = 0; c < nc; c++) {
            Arrays.fill(fifo[c], -1);
            Arrays.fill(ctl[c], -1);
            for (int q : peers(channels.get(c), n)) {
                if (memory.net(q)) {
                    netLinks.add(new DeviceNetLink(c, q, true));
                    netLinks.add(new DeviceNetLink(c, q, false));
                } else {
                    fifo[c][q] = memory.reserve(q, layout.bytes());
                }
            }
        }
        for (int c = 0; c < nc; c++) {
            for (int q : peers(channels.get(c), n)) {
                if (!memory.net(q)) {
                    ctl[c][q] = memory.reserve(q, ConnRegion.CTL_BYTES);
                }
            }
        }
        // Zeroed: LL and LL128 lines carry flags, and a fresh buffer must hold none that a step expects.
        memory.allocate(ctx);
        List<Long> mine = new ArrayList<>();
        NetConns net = null;
        try {
            net = NetConns.connect(ctx, comm, netLinks, NET_TAG);
            NetConns nets = net;
            // Blob: the regions' descriptors, then per channel and rank the FIFO and control offsets.
            ByteBuffer blob = ByteBuffer.allocate(ConnMemory.DESCRIPTORS_BYTES + 16 * nc * n);
            memory.describe(blob);
            for (int c = 0; c < nc; c++) {
                for (int q = 0; q < n; q++) {
                    blob.putLong(fifo[c][q]).putLong(ctl[c][q]);
                }
            }
            byte[] all = comm.allGather(blob.array());
            int stride = blob.capacity();
            long[] ring = new long[nc];
            for (int c = 0; c < nc; c++) {
                ring[c] = alloc(ctx, mine, 4L * n);
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment host = arena.allocate((long) CHANNEL_BYTES * nc, 8);
                for (int c = 0; c < nc; c++) {
                    DeviceChannel ch = channels.get(c);
                    int[] r = ch.ring();
                    int cc = c;
                    long base = (long) CHANNEL_BYTES * c;
                    Link link = (peer, send) -> {
                        if (nets.has(cc, peer)) {
                            return nets.end(cc, peer, send);
                        }
                        ByteBuffer pb = ByteBuffer.wrap(all, peer * stride, stride).slice();
                        long theirs = memory.map(peer, pb, contexts);
                        long mineBase = memory.base(peer);
                        int o = ConnMemory.DESCRIPTORS_BYTES + 16 * (cc * n + me);
                        long theirFifo = theirs + pb.getLong(o);
                        long theirCtl = theirs + pb.getLong(o + 8);
                        long myCtl = mineBase + ctl[cc][peer];
                        long myFifo = mineBase + fifo[cc][peer];
                        return send
                                // into the peer's FIFOs and tail; our head (the peer writes it); our send step
                                ? ConnEnd.direct(layout.of(theirFifo, myFifo, comm.p2pRead(peer)),
                                    theirCtl + ConnRegion.TAIL, myCtl + ConnRegion.HEAD, myCtl + ConnRegion.SEND_STEP)
                                // our FIFOs and tail (the peer writes them); the peer's head; our receive step
                                : ConnEnd.direct(layout.of(myFifo, theirFifo, comm.p2pRead(peer)),
                                    myCtl + ConnRegion.TAIL, theirCtl + ConnRegion.HEAD, myCtl + ConnRegion.RECV_STEP);
                    };
                    link.of(r[1], true).write(host, base + RING_SEND);
                    link.of(r[n - 1], false).write(host, base + RING_RECV);
                    if (ch.treeUp() >= 0) {
                        link.of(ch.treeUp(), true).write(host, base + UP_SEND);
                        link.of(ch.treeUp(), false).write(host, base + UP_RECV);
                    }
                    int[] down = ch.treeDown();
                    for (int i = 0; i < down.length; i++) {
                        link.of(down[i], true).write(host, base + DOWN_SEND + (long) CONN_BYTES * i);
                        link.of(down[i], false).write(host, base + DOWN_RECV + (long) CONN_BYTES * i);
                    }
                    for (int q : peers(ch, n)) {
                        boolean both = q == ch.treeUp() || Arrays.stream(down).anyMatch(d -> d == q);
                        if (both || q == r[1]) {
                            log(memory, c, me, q);
                        }
                        if (both || q == r[n - 1]) {
                            log(memory, c, q, me);
                        }
                    }
                    host.set(ValueLayout.JAVA_LONG, base + RING, ring[c]);
                    host.set(ValueLayout.JAVA_INT, base + TREE_UP, ch.treeUp());
                    host.set(ValueLayout.JAVA_INT, base + N_TREE_DOWN, down.length);
                    MemorySegment ringHost = arena.allocate(4L * n, 4);
                    for (int k = 0; k < n; k++) {
                        ringHost.setAtIndex(ValueLayout.JAVA_INT, k, r[k]);
                    }
                    ctx.copyHtoD(ring[c], ringHost.address(), 4L * n, 0);
                }
                long array = alloc(ctx, mine, host.byteSize());
                ctx.copyHtoD(array, host.address(), host.byteSize(), 0);
                memory.peersMapped();
                return new ChannelConns(ctx, memory, net, array, mine);
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

    /** NCCL's connection line, once per channel and direction: {@code Channel 00 : 0 -> 1 via P2P/IPC}. */
    private static void log(ConnMemory memory, int channel, int from, int to) {
        if (from != to) {
            Log.info(Subsys.INIT, "Channel %02d : %d -> %d via %s", channel, from, to, memory.via(from == memory.rank()
                    ? to : from));
        }
    }

    /** The device addresses of one end of a connection. */
    @FunctionalInterface
    private interface Link {
        ConnEnd of(int peer, boolean send);
    }

    /** The ranks a channel connects this one to: ring neighbours, tree parent and children. */
    private static Set<Integer> peers(DeviceChannel ch, int n) {
        int[] r = ch.ring();
        Set<Integer> s = new LinkedHashSet<>();
        s.add(r[1]);
        s.add(r[n - 1]);
        if (ch.treeUp() >= 0) {
            s.add(ch.treeUp());
        }
        for (int d : ch.treeDown()) {
            s.add(d);
        }
        return s;
    }

    static long alloc(GpuRuntime ctx, List<Long> mine, long bytes) {
        long a = ctx.memAlloc(bytes);
        mine.add(a);
        return a;
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
