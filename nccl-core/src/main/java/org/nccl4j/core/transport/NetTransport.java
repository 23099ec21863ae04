package org.nccl4j.core.transport;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.proxy.NetRecvTask;
import org.nccl4j.core.proxy.NetSendTask;
import org.nccl4j.core.proxy.NetTask;
import org.nccl4j.core.proxy.Proxy;
import org.nccl4j.core.wait.Deadline;
import org.nccl4j.net.spi.ListenComm;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.SendComm;
import org.nccl4j.core.conn.BuffSizes;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.proxy.NetBuffers;
import org.nccl4j.net.spi.Comm;

/**
 * Ranks connect through the network chosen by initNet ({@code "NET"}, NCCL's {@code net.cc}):
 * the last resort, it connects any two ranks. The kernel only touches local memory: a step
 * buffer per protocol and two headers per connection; the communicator's {@link Proxy} moves the steps with
 * the plugin's {@code isend}/{@code irecv} ({@link NetSendTask}, {@link NetRecvTask}).
 *
 * <p>With GPU Direct RDMA ({@link NetGdr}, decided at init as NCCL's {@code ncclTopoCheckGdr}), a
 * send end's LL128 and Simple buffers and all of a receive end's buffers lie in GPU memory,
 * registered as {@link Net#PTR_CUDA}, as in NCCL's {@code netSendSetup}/{@code netRecvSetup}; the
 * headers stay in host memory, where the proxy reads and writes them.
 *
 * <p>The receiver listens in {@code setupRecv} and ships the plugin's handle; the sender
 * connects in {@code connectSend}, the receiver accepts in {@code connectRecv}. Both retry the
 * plugin's non-blocking calls until {@code NCCL4J_CONNECT_TIMEOUT_MS} or an abort.
 */
public final class NetTransport implements Transport {
    private static final long MAX_BACKOFF_NANOS = 1_000_000;

    /** A transport over the communicator's network. */
    public NetTransport() {
    }

    @Override
    public String name() {
        return "NET";
    }

    /** Always, once initNet found a network. */
    @Override
    public boolean canConnect(TransportContext ctx, int peer) {
        return ctx.net() != null && ctx.net().devices() > 0;
    }

    /** The device a channel uses: round-robin over the network's devices. */
    private static int device(TransportContext ctx, int channel) {
        return channel % Math.max(1, ctx.net().devices());
    }

    private static String via(Net net, int dev, boolean gdr) {
        return "NET/" + net.name() + "/" + dev + (gdr ? "/GDRDMA" : "");
    }

    /** The receiver's listening endpoint until the sender connects. */
    private record Listening(int dev, ListenComm listenComm) {
    }

    /** Nothing to set up: the sender connects once it has the receiver's handle. */
    @Override
    public Setup setupSend(TransportContext ctx, int channel, int peer) {
        return new Setup(channel, peer, new byte[0], device(ctx, channel));
    }

    /** Listens on the channel's device; the connect info is the plugin's handle. */
    @Override
    public Setup setupRecv(TransportContext ctx, int channel, int peer) {
        Net net = ctx.net().net();
        int dev = device(ctx, channel);
        byte[] handle = new byte[Net.HANDLE_MAXSIZE];
        try {
            ListenComm l = net.listen(dev, handle);
            return new Setup(channel, peer, handle, new Listening(dev, l));
        } catch (NetException e) {
            throw control(ChannelLine.of(ctx, channel, peer, ctx.rank(), "[receive] ", via(net, dev, ctx.gdr().uses(dev,
                    false))), peer, "listen", e);
        }
    }

    /** Connects to the receiver's handle, registers the local protocol buffers and starts a send task. */
    @Override
    public Conn connectSend(TransportContext ctx, Setup mine, byte[] peerInfo) {
        Net net = ctx.net().net();
        int dev = (Integer) mine.state();
        int peer = mine.peer();
        boolean gdr = ctx.gdr().uses(dev, true);
        String desc = ChannelLine.of(ctx, mine.channel(), ctx.rank(), peer, "[send] ", via(net, dev, gdr));
        SendComm comm = retry(ctx, desc, peer, "connect", () -> net.connect(dev, peerInfo));
        try {
            Mem m = Mem.allocate(ctx, gdr, true);
            NetBuffers buffs = m.register(net, comm);
            Proxy proxy = ctx.proxy().get();
            NetSendTask task = new NetSendTask(net, comm, buffs, ctx.buffs(), m.recvMem, m.sendMem, desc, peer);
            proxy.add(task);
            // The kernel publishes its tail (and sizes) in recvMem and waits for credit in sendMem.
            return new Conn(desc, buffs.buffs(), ctx.buffs(), m.recvMem, m.sendMem, peerCheck(ctx, peer), proxy,
                    task);
        } catch (NetException | RuntimeException e) {
            closeQuietly(() -> net.closeSend(comm));
            throw e instanceof NetException ne ? control(desc, peer, "regMr", ne) : (RuntimeException) e;
        }
    }

    /** A receive setup's listener (a send setup holds nothing). */
    @Override
    public void abandon(TransportContext ctx, Setup mine) {
        if (mine.state() instanceof Listening l) {
            closeQuietly(() -> ctx.net().net().closeListen(l.listenComm()));
        }
    }

    /** Accepts the sender's connection, registers the local protocol buffers and starts a receive task. */
    @Override
    public Conn connectRecv(TransportContext ctx, Setup mine, byte[] peerInfo) {
        Net net = ctx.net().net();
        Listening l = (Listening) mine.state();
        int peer = mine.peer();
        boolean gdr = ctx.gdr().uses(l.dev(), false);
        String desc = ChannelLine.of(ctx, mine.channel(), peer, ctx.rank(), "[receive] ", via(net, l.dev(), gdr));
        RecvComm comm;
        try {
            comm = retry(ctx, desc, peer, "accept", () -> net.accept(l.listenComm()));
        } finally {
            closeQuietly(() -> net.closeListen(l.listenComm()));
        }
        try {
            Mem m = Mem.allocate(ctx, gdr, false);
            NetBuffers buffs = m.register(net, comm);
            Proxy proxy = ctx.proxy().get();
            NetRecvTask task = new NetRecvTask(net, comm, buffs, ctx.buffs(), m.recvMem, m.sendMem, desc, peer);
            proxy.add(task);
            Log.info(Subsys.INIT | Subsys.NET, "%s", desc);
            // The kernel publishes its head in sendMem and waits for the tail in recvMem.
            return new Conn(desc, buffs.buffs(), ctx.buffs(), m.sendMem, m.recvMem, peerCheck(ctx, peer), proxy,
                    task);
        } catch (NetException | RuntimeException e) {
            closeQuietly(() -> net.closeRecv(comm));
            throw e instanceof NetException ne ? control(desc, peer, "regMr", ne) : (RuntimeException) e;
        }
    }

    /**
     * Local connection memory: a receive header followed by the protocol buffers in host memory,
     * a send header, and the protocol buffers in GPU memory, if any.
     *
     * @param recvMem the receive header and the host buffers
     * @param sendMem the send header
     * @param device  the GPU buffers, or {@code null}
     * @param buffs   by protocol code, its buffer in one of them
     * @param onDevice by protocol code, whether it is in {@code device}
     */
    private record Mem(MemorySegment recvMem, MemorySegment sendMem, MemorySegment device, MemorySegment[] buffs,
                       boolean[] onDevice) {
        /**
         * NCCL's placement: with GPU Direct RDMA, everything but a send end's LL buffer (which the
         * proxy reads, flag by flag) in GPU memory.
         */
        static Mem allocate(TransportContext ctx, boolean gdr, boolean send) {
            BuffSizes sizes = ctx.buffs();
            boolean[] onDevice = new boolean[Protocol.values().length];
            long[] offsets = new long[onDevice.length];
            long host = 0;
            long device = 0;
            for (Protocol p : Protocol.values()) {
                onDevice[p.code()] = gdr && !(send && p == Protocol.LL);
                offsets[p.code()] = onDevice[p.code()] ? device : host;
                if (onDevice[p.code()]) {
                    device += sizes.size(p);
                } else {
                    host += sizes.size(p);
                }
            }
            MemorySegment recvMem = ctx.memory().allocate(ConnMem.HEADER + host, ConnMem.HEADER);
            MemorySegment sendMem = ctx.memory().allocate(ConnMem.HEADER, ConnMem.HEADER);
            MemorySegment dev = device > 0 ? ctx.memory().allocateDevice(device) : null;
            MemorySegment[] buffs = new MemorySegment[onDevice.length];
            for (Protocol p : Protocol.values()) {
                MemorySegment region = onDevice[p.code()] ? dev : recvMem.asSlice(ConnMem.HEADER);
                buffs[p.code()] = region.asSlice(offsets[p.code()], sizes.size(p));
            }
            return new Mem(recvMem, sendMem, dev, buffs, onDevice);
        }

        /** Registers the host buffers ({@link Net#PTR_HOST}) and the GPU ones ({@link Net#PTR_CUDA}) with an endpoint. */
        NetBuffers register(Net net, Comm comm) throws NetException {
            MemorySegment hostBuffs = recvMem.asSlice(ConnMem.HEADER);
            MemoryHandle hostHandle = hostBuffs.byteSize() > 0 ? net.regMr(comm, hostBuffs, Net.PTR_HOST) : null;
            MemoryHandle deviceHandle = null;
            try {
                deviceHandle = device != null ? net.regMr(comm, device, Net.PTR_CUDA) : null;
            } catch (NetException | RuntimeException e) {
                if (hostHandle != null) {
                    closeQuietly(() -> net.deregMr(comm, hostHandle));
                }
                throw e;
            }
            MemoryHandle[] handles = new MemoryHandle[buffs.length];
            for (int p = 0; p < buffs.length; p++) {
                handles[p] = onDevice[p] ? deviceHandle : hostHandle;
            }
            return new NetBuffers(buffs, handles, onDevice);
        }
    }

    /** A plugin call that returns {@code null} while it cannot complete yet. */
    @FunctionalInterface
    private interface Attempt<T> {
        T call() throws NetException;
    }

    /** Retries a non-blocking connect or accept with a growing pause, until done, the deadline or an abort. */
    private static <T> T retry(TransportContext ctx, String desc, int peer, String what, Attempt<T> attempt) {
        long timeoutMs = ctx.config().integer(Params.CONNECT_TIMEOUT_MS);
        Deadline deadline = Deadline.afterMillis(timeoutMs);
        long pause = 10_000;
        while (true) {
            ctx.abort().check(desc + ": " + what);
            T r;
            try {
                r = attempt.call();
            } catch (NetException e) {
                throw control(desc, peer, what, e);
            }
            if (r != null) {
                return r;
            }
            if (deadline.expired()) {
                PeerInfo p = ctx.peers().get(peer);
                throw NcclException.of(Result.TIMEOUT, desc + ": " + what + " with rank " + peer + " (" + p.hostname()
                        + ") did not complete within " + timeoutMs + " ms",
                        "check that rank " + peer + " is running and reachable (NCCL_SOCKET_IFNAME, firewalls), or raise "
                                + Params.CONNECT_TIMEOUT_MS.envName());
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(MAX_BACKOFF_NANOS, pause * 2);
        }
    }

    /** A failure at setup: as on the data path, except that an unusable network is a system error. */
    private static NcclException control(String desc, int peer, String what, NetException e) {
        if (e.kind() == NetException.Kind.SYSTEM) {
            return NcclException.of(Result.SYSTEM_ERROR, desc + ": " + what + " failed: " + e.getMessage(),
                    "check the network interface (NCCL_SOCKET_IFNAME) and that rank " + peer + " is reachable", e);
        }
        return NetTask.failure(desc, peer, what, e);
    }

    /** Same host: the peer's process can be watched; elsewhere the proxy reports a lost peer. */
    private static PeerCheck peerCheck(TransportContext ctx, int peer) {
        PeerInfo p = ctx.peers().get(peer);
        return p.hostHash() == ctx.me().hostHash() ? PeerCheck.process(p.pid(), "rank " + peer) : PeerCheck.ALWAYS;
    }

    @FunctionalInterface
    private interface NetClose {
        void close() throws NetException;
    }

    private static void closeQuietly(NetClose c) {
        try {
            c.close();
        } catch (NetException | RuntimeException e) {
            Log.info(Subsys.NET, "NET: close after a failed connect: %s", e.getMessage());
        }
    }
}
