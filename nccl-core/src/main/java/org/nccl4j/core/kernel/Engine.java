package org.nccl4j.core.kernel;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.ReentrantLock;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.bootstrap.Bootstrap;
import org.nccl4j.core.enqueue.CollOp;
import org.nccl4j.core.enqueue.P2pOp;
import org.nccl4j.core.reduce.Reducer;
import org.nccl4j.core.transport.Conn;
import org.nccl4j.core.transport.TransportContext;
import org.nccl4j.core.transport.TransportSetup;
import org.nccl4j.core.transport.TransportSetup.Link;
import org.nccl4j.core.wait.Deadline;

/**
 * A communicator's execution state on the host backend: its channels (rings), point-to-point
 * connections, proxy, and the "kernel launch" that runs a batch of operations. Channel 0 runs on
 * the launching (stream) thread; other channels on one worker thread each.
 */
public final class Engine implements AutoCloseable {
    /** Channel id of point-to-point connections (apart from the rings' so step counters stay separate). */
    static final int P2P_CHANNEL = 64;
    private static final int RING_TAG = 1;
    private static final int P2P_TAG = 2 + P2P_CHANNEL;

    private final TransportContext ctx;
    private final TransportSetup setup;
    private final Bootstrap bootstrap;
    private final List<Channel> channels;
    private final Map<Integer, Conn> p2pSend = new HashMap<>();
    private final Map<Integer, Conn> p2pRecv = new HashMap<>();
    private final Waiter waiter;
    private final ExecutorService workers;
    private final ReentrantLock lock = new ReentrantLock();
    private final long connectTimeoutMs;

    private Engine(TransportContext ctx, TransportSetup setup, Bootstrap bootstrap, List<Channel> channels,
                   Waiter waiter, long connectTimeoutMs) {
        this.ctx = ctx;
        this.setup = setup;
        this.bootstrap = bootstrap;
        this.channels = channels;
        this.waiter = waiter;
        this.connectTimeoutMs = connectTimeoutMs;
        this.workers = channels.size() > 1
                ? Executors.newFixedThreadPool(channels.size() - 1,
                        Thread.ofPlatform().daemon().name("nccl4j-rank" + ctx.rank() + "-channel-", 1).factory())
                : null;
    }

    /**
     * Connects the rings (init's {@code P2pSetup} with the ring graph).
     *
     * @param ctx       transport context
     * @param setup     transport selection and exchange
     * @param bootstrap for the exchange
     * @param ringOrder the ranks in ring order
     * @param nChannels channels to build
     * @param waiter    how kernels wait
     * @param deadline  for the exchange
     * @param connectTimeoutMs deadline of later lazy point-to-point connects
     * @return the engine
     */
    public static Engine connect(TransportContext ctx, TransportSetup setup, Bootstrap bootstrap, int[] ringOrder,
                                 int nChannels, Waiter waiter, Deadline deadline,
                                 long connectTimeoutMs) {
        int n = ringOrder.length;
        int pos = 0;
        while (ringOrder[pos] != ctx.rank()) {
            pos++;
        }
        int[] ring = new int[n];
        for (int k = 0; k < n; k++) {
            ring[k] = ringOrder[(pos + k) % n];
        }
        List<Link> recvs = new ArrayList<>();
        List<Link> sends = new ArrayList<>();
        if (n > 1) {
            for (int c = 0; c < nChannels; c++) {
                recvs.add(new Link(c, ring[n - 1]));
                sends.add(new Link(c, ring[1]));
            }
        }
        TransportSetup.Connected conns = setup.connect(bootstrap, recvs, sends, RING_TAG, deadline);
        List<Channel> channels = new ArrayList<>();
        for (int c = 0; c < nChannels; c++) {
            channels.add(new Channel(c, ring, conns.sends().get(new Link(c, ring[Math.min(1, n - 1)])),
                    conns.recvs().get(new Link(c, ring[n - 1]))));
        }
        return new Engine(ctx, setup, bootstrap, List.copyOf(channels), waiter, connectTimeoutMs);
    }

    /** @return the channels */
    public List<Channel> channels() {
        return channels;
    }

    /**
     * Runs a batch ("kernel launch"): the collectives in call order, then the sends and receives
     * together. Batches of one communicator never overlap.
     *
     * @param colls collectives
     * @param p2ps  sends and receives
     */
    public void launch(List<CollOp> colls, List<P2pOp> p2ps) {
        lock.lock();
        try {
            for (CollOp op : colls) {
                runCollective(op);
            }
            if (!p2ps.isEmpty()) {
                runP2p(p2ps);
            }
        } finally {
            lock.unlock();
        }
    }

    private void runCollective(CollOp op) {
        int n = ctx.nranks();
        if (n == 1) {
            copyLocal(op);
            return;
        }
        if (channels.size() == 1) {
            runChannel(op, 0);
            return;
        }
        List<CompletableFuture<Void>> others = new ArrayList<>();
        for (int c = 1; c < channels.size(); c++) {
            int bid = c;
            others.add(CompletableFuture.runAsync(() -> runChannel(op, bid), workers));
        }
        RuntimeException first = null;
        try {
            runChannel(op, 0);
        } catch (RuntimeException e) {
            first = e;
            ctx.abort().set("channel 0 failed: " + e.getMessage());
        }
        for (CompletableFuture<Void> f : others) {
            try {
                f.join();
            } catch (CompletionException e) {
                if (first == null) {
                    first = e.getCause() instanceof RuntimeException r ? r : e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private void runChannel(CollOp op, int bid) {
        Channel ch = channels.get(bid);
        int ts = op.type().size();
        boolean bytes = op.func() == CollOp.Func.BROADCAST || op.func() == CollOp.Func.ALL_GATHER;
        Reducer reducer = bytes ? null : Reducer.of(op.type(), op.op(), ctx.nranks());
        int unit = bytes ? 1 : ts;
        Prims p = new Prims(ch.send(), ch.recv(), reducer, unit, waiter);
        int nc = channels.size();
        long stepElems = ctx.stepSize() / unit;
        switch (op.func()) {
            case ALL_REDUCE -> RingKernels.allReduce(p, ch.ring(), op.in(), op.out(), op.count(), ts,
                    new RingKernels.Split(nc, bid, 4 * stepElems, align(ts)));
            case REDUCE_SCATTER -> RingKernels.reduceScatter(p, ch.ring(), op.in(), op.out(), op.count(), ts,
                    new RingKernels.Split(nc, bid, 4 * stepElems, align(ts)));
            case ALL_GATHER -> {
                long bytesPerRank = op.count() * ts;
                MemorySegment mine = op.out().asSlice(ctx.rank() * bytesPerRank, bytesPerRank);
                boolean inPlace = Prims.same(op.in().asSlice(0, bytesPerRank), mine);
                RingKernels.allGather(p, ch.ring(), op.in(), op.out(), bytesPerRank, inPlace,
                        new RingKernels.Split(nc, bid, 4 * stepElems, 64));
            }
            case BROADCAST -> RingKernels.broadcast(p, ch.ring(), op.root(), op.in(), op.out(), op.count() * ts,
                    new RingKernels.Split(nc, bid, stepElems, 64));
            case REDUCE -> RingKernels.reduce(p, ch.ring(), op.root(), op.in(), op.out(), op.count(), ts,
                    new RingKernels.Split(nc, bid, stepElems, align(ts)));
        }
    }

    /** Chunks are multiples of 64 bytes, so vector reductions see whole lanes. */
    private static long align(int ts) {
        return Math.max(1, 64 / ts);
    }

    /** One rank: the collective is a copy (with the reduction's pre/post ops, e.g. AVG). */
    private void copyLocal(CollOp op) {
        long bytes = op.count() * op.type().size();
        if (op.func() == CollOp.Func.BROADCAST || op.func() == CollOp.Func.ALL_GATHER) {
            if (!Prims.same(op.in().asSlice(0, bytes), op.out().asSlice(0, bytes))) {
                MemorySegment.copy(op.in(), 0, op.out(), 0, bytes);
            }
            return;
        }
        Reducer r = Reducer.of(op.type(), op.op(), 1);
        if (r.hasPreOp()) {
            r.preOp(op.in(), 0, op.out(), 0, op.count());
        } else if (!Prims.same(op.in().asSlice(0, bytes), op.out().asSlice(0, bytes))) {
            MemorySegment.copy(op.in(), 0, op.out(), 0, bytes);
        }
        if (r.hasPostOp()) {
            r.postOp(op.out(), 0, op.count());
        }
    }

    private void runP2p(List<P2pOp> ops) {
        connectP2p(ops);
        Map<Conn, ArrayDeque<P2pKernel.Transfer>> lanes = new LinkedHashMap<>();
        ArrayDeque<P2pOp> selfSends = new ArrayDeque<>();
        ArrayDeque<P2pOp> selfRecvs = new ArrayDeque<>();
        for (P2pOp op : ops) {
            if (op.peer() == ctx.rank()) {
                (op.send() ? selfSends : selfRecvs).add(op);
                continue;
            }
            Conn c = op.send() ? p2pSend.get(op.peer()) : p2pRecv.get(op.peer());
            lanes.computeIfAbsent(c, k -> new ArrayDeque<>()).add(new P2pKernel.Transfer(op.send(), op.buf(), op.bytes(), c));
        }
        if (selfSends.size() != selfRecvs.size()) {
            throw NcclException.of(Result.INVALID_USAGE, "rank " + ctx.rank() + " sends " + selfSends.size()
                    + " messages to itself but receives " + selfRecvs.size(), "pair every send to self with a recv in the same group");
        }
        while (!selfSends.isEmpty()) {
            P2pOp s = selfSends.poll();
            P2pOp r = selfRecvs.poll();
            if (s.bytes() != r.bytes()) {
                throw NcclException.of(Result.INVALID_USAGE, "send to self of " + s.bytes() + " bytes but recv of "
                        + r.bytes(), "NCCL requires equal sizes for a rank's send and recv to itself");
            }
            MemorySegment.copy(s.buf(), 0, r.buf(), 0, s.bytes());
        }
        P2pKernel.run(lanes, waiter);
    }

    /** Connects, on first use, the point-to-point connections this batch needs (NCCL does it at group end). */
    private void connectP2p(List<P2pOp> ops) {
        List<Link> recvs = new ArrayList<>();
        List<Link> sends = new ArrayList<>();
        for (P2pOp op : ops) {
            if (op.peer() == ctx.rank()) {
                continue;
            }
            Link l = new Link(P2P_CHANNEL, op.peer());
            if (op.send() && !p2pSend.containsKey(op.peer()) && !sends.contains(l)) {
                sends.add(l);
            } else if (!op.send() && !p2pRecv.containsKey(op.peer()) && !recvs.contains(l)) {
                recvs.add(l);
            }
        }
        if (recvs.isEmpty() && sends.isEmpty()) {
            return;
        }
        TransportSetup.Connected c = setup.connect(bootstrap, recvs, sends, P2P_TAG,
                Deadline.afterMillis(connectTimeoutMs));
        c.sends().forEach((l, conn) -> p2pSend.put(l.peer(), conn));
        c.recvs().forEach((l, conn) -> p2pRecv.put(l.peer(), conn));
    }

    /** @return a short description of the connections, for logs */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        for (Channel ch : channels) {
            sb.append(ch.send() == null ? "channel " + ch.id() + " local" : ch.send().description()).append("; ");
        }
        return sb.toString();
    }

    @Override
    public void close() {
        if (workers != null) {
            workers.shutdownNow();
        }
        for (Channel ch : channels) {
            if (ch.send() != null) {
                ch.send().close();
            }
            if (ch.recv() != null) {
                ch.recv().close();
            }
        }
        p2pSend.values().forEach(Conn::close);
        p2pRecv.values().forEach(Conn::close);
    }

}
