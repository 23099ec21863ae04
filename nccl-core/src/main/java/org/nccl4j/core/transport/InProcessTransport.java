package org.nccl4j.core.transport;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.shm.InPlaceSource;

/**
 * Ranks in one JVM use each other's memory directly (NCCL's P2P "direct pointer" case): the
 * receiver allocates its header and protocol buffers, the sender finds it through a process-wide
 * registry by the id in the connect info and writes into it. Unless
 * {@code NCCL_P2P_DIRECT_DISABLE=1}, the receiver also reads the Simple steps of the sender's
 * collectives where they lie in the caller's native memory ({@link InPlaceSource#SAME_PROCESS}),
 * one copy less per step.
 */
public final class InProcessTransport implements Transport {
    private static final Map<Long, MemorySegment> REGISTRY = new ConcurrentHashMap<>();
    private static final AtomicLong IDS = new AtomicLong(1);

    @Override
    public String name() {
        return "P2P/direct pointer";
    }

    @Override
    public boolean canConnect(TransportContext ctx, int peer) {
        PeerInfo me = ctx.me();
        PeerInfo p = ctx.peers().get(peer);
        return me.hostHash() == p.hostHash() && me.pidHash() == p.pidHash();
    }

    private static byte[] register(MemorySegment mem) {
        long id = IDS.getAndIncrement();
        REGISTRY.put(id, mem);
        return ByteBuffer.allocate(8).putLong(id).array();
    }

    private static MemorySegment lookup(byte[] info, String what) {
        MemorySegment m = REGISTRY.remove(ByteBuffer.wrap(info).getLong());
        if (m == null) {
            throw NcclException.of(Result.INTERNAL_ERROR, what + ": peer memory not found in this process", null);
        }
        return m;
    }

    @Override
    public Setup setupSend(TransportContext ctx, int channel, int peer) {
        MemorySegment sendMem = ctx.memory().allocate(ConnMem.HEADER, 128);
        return new Setup(channel, peer, register(sendMem), sendMem);
    }

    @Override
    public Setup setupRecv(TransportContext ctx, int channel, int peer) {
        MemorySegment recvMem = ctx.memory().allocate(ctx.recvMemSize(), 4096);
        ConnMem.setInPlaceOk(recvMem, ctx.config().integer(Params.P2P_DIRECT_DISABLE) != 1);
        return new Setup(channel, peer, register(recvMem), recvMem);
    }

    @Override
    public Conn connectSend(TransportContext ctx, Setup mine, byte[] peerInfo) {
        String desc = ctx.describe(mine.channel(), ctx.rank(), mine.peer(), name());
        MemorySegment peerRecv = lookup(peerInfo, desc);
        MemorySegment own = (MemorySegment) mine.state();
        Conn c = new Conn(desc, peerRecv.asSlice(ConnMem.HEADER), ctx.buffs(), peerRecv, own, PeerCheck.ALWAYS, null,
                null);
        if (ConnMem.inPlaceOk(peerRecv)) {
            c.sendInPlace(true);
        }
        return c;
    }

    @Override
    public Conn connectRecv(TransportContext ctx, Setup mine, byte[] peerInfo) {
        String desc = ctx.describe(mine.channel(), mine.peer(), ctx.rank(), name());
        MemorySegment peerSend = lookup(peerInfo, desc);
        MemorySegment own = (MemorySegment) mine.state();
        Conn c = new Conn(desc, own.asSlice(ConnMem.HEADER), ctx.buffs(), peerSend, own, PeerCheck.ALWAYS, null, null);
        if (ConnMem.inPlaceOk(own)) {
            c.readInPlace(InPlaceSource.SAME_PROCESS);
        }
        return c;
    }
}
