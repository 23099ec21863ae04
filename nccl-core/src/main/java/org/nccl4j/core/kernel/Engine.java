package org.nccl4j.core.kernel;

import org.nccl4j.core.topo.tuning.Algorithm;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.bootstrap.Bootstrap;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.op.CollOp;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.op.P2pOp;
import org.nccl4j.core.reduce.Reducer;
import org.nccl4j.core.transport.Conn;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.transport.TransportContext;
import org.nccl4j.core.transport.TransportSetup;
import org.nccl4j.core.transport.TransportSetup.Link;
import org.nccl4j.core.wait.CommFailure;
import org.nccl4j.core.wait.Deadline;

/**
 * A communicator's execution state on the host backend: its channels (rings and trees),
 * point-to-point connections, proxy, and the "kernel launch" that runs a batch of operations.
 * Each collective runs with the algorithm and protocol its {@link AlgoChooser} picked. Channel
 * 0 runs on the launching (stream) thread; other channels on one worker thread each.
 */
public final class Engine implements AutoCloseable {
    /** Channel id of point-to-point connections (apart from the rings' so step counters stay separate). */
    static final int P2P_CHANNEL = 64;
    private static final int RING_TAG = 1;
    private static final int P2P_TAG = 2 + P2P_CHANNEL;
    /** Bound on the workers' exit at teardown: every wait observes the abort flag within a few ms. */
    private static final long STOP_MILLIS = 5_000;

    private final TransportContext ctx;
    private final TransportSetup setup;
    private final Bootstrap bootstrap;
    private final List<Channel> channels;
    private final Set<Conn> channelConns;
    private final AlgoChooser chooser;
    private final Map<Integer, Conn> p2pSend = new HashMap<>();
    private final Map<Integer, Conn> p2pRecv = new HashMap<>();
    /** This rank's recursive-doubling exchanges, their connections made at init; {@code null} if it has none. */
    private List<RecursiveDoubling.Exchange> rdPlan;
    private final Waiter waiter;
    private final ChannelWorkers workers;
    private final ReentrantLock lock = new ReentrantLock();
    private final KernelParts parts;
    private final long connectTimeoutMs;
    private final CommFailure failure;
    /** Marks every connection failed once the communicator aborts; guarded by {@link #connsLock}. */
    private final Runnable markFailed = this::markConnsFailed;
    private final Object connsLock = new Object();
    /** Set by {@link #stop}: the connections' memory may be gone; guarded by {@link #connsLock}. */
    private boolean connsClosed;

    private Engine(TransportContext ctx, TransportSetup setup, Bootstrap bootstrap, List<Channel> channels,
                   Set<Conn> channelConns, AlgoChooser chooser, Waiter waiter, long connectTimeoutMs,
                   CommFailure failure) {
        this.ctx = ctx;
        this.setup = setup;
        this.bootstrap = bootstrap;
        this.channels = channels;
        this.channelConns = channelConns;
        this.chooser = chooser;
        this.waiter = waiter;
        this.connectTimeoutMs = connectTimeoutMs;
        this.failure = failure;
        this.parts = new KernelParts(ctx.nranks(), channels.size());
        this.workers = channels.size() > 1
                ? new ChannelWorkers(channels.size() - 1, "nccl4j-rank" + ctx.rank() + "-channel-",
                        waiter.channelSpinNanos(channels.size(), ctx.config().integer(Params.CHANNEL_SPIN_US) * 1_000L))
                : null;
        if (ctx.abort() != null) {
            ctx.abort().onAbort(markFailed);
        }
    }

    /**
     * @return a connection whose memory was freed under it (its owner, a communicator in this
     *     process, was aborted or closed), or {@code null}
     */
    public String connectionFreed() {
        synchronized (connsLock) {
            for (Map<Integer, Conn> m : List.of(p2pSend, p2pRecv)) {
                for (Conn c : m.values()) {
                    if (!c.memoryAlive()) {
                        return c.description();
                    }
                }
            }
            for (Conn c : channelConns) {
                if (!c.memoryAlive()) {
                    return c.description();
                }
            }
            return null;
        }
    }

    /**
     * On abort (a failure here, or the user's): tells every peer through the connections it waits
     * on, so ranks waiting on this one fail at once and pass it on, rather than at their timeout.
     */
    private void markConnsFailed() {
        synchronized (connsLock) {
            if (connsClosed) {
                return;
            }
            channelConns.forEach(Conn::markFailed);
            p2pSend.values().forEach(Conn::markFailed);
            p2pRecv.values().forEach(Conn::markFailed);
        }
    }

    /**
     * Connects every channel's ring and tree (init's {@code P2pSetup} with the ring and tree
     * graphs). A peer that is both a ring and a tree neighbour in a channel gets one connection
     * per direction, shared by both, as in NCCL.
     *
     * @param ctx       transport context
     * @param setup     transport selection and exchange
     * @param bootstrap for the exchange
     * @param plans     the channels, ids distinct and below 32
     * @param chooser   picks each collective's algorithm and protocol
     * @param waiter    how kernels wait
     * @param deadline  for the exchange
     * @param connectTimeoutMs deadline of later lazy point-to-point connects
     * @param failure   where a channel's failure is recorded (it aborts the communicator)
     * @return the engine
     * @throws NcclException with {@link Result#INVALID_ARGUMENT} for a malformed plan
     */
    public static Engine connect(TransportContext ctx, TransportSetup setup, Bootstrap bootstrap, List<ChannelPlan> plans,
                                 AlgoChooser chooser, Waiter waiter, Deadline deadline, long connectTimeoutMs,
                                 CommFailure failure) {
        if (plans.isEmpty()) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "no channels to connect", "pass at least one ChannelPlan");
        }
        Set<Integer> ids = new HashSet<>();
        for (ChannelPlan p : plans) {
            check(ctx, p);
            if (!ids.add(p.id())) {
                throw NcclException.of(Result.INVALID_ARGUMENT, "channel " + p.id() + " planned twice", null);
            }
        }
        // Sorted by channel, then peer: both ends then list a pair's connections in the same order.
        TreeSet<Link> sends = new TreeSet<>(LINK_ORDER);
        TreeSet<Link> recvs = new TreeSet<>(LINK_ORDER);
        for (ChannelPlan p : plans) {
            int[] ring = p.ringUserRanks();
            if (ring.length > 1) {
                sends.add(new Link(p.id(), ring[1]));
                recvs.add(new Link(p.id(), ring[ring.length - 1]));
            }
            List<Integer> treePeers = new ArrayList<>();
            if (p.treeUp() >= 0) {
                treePeers.add(p.treeUp());
            }
            for (int d : p.treeDown()) {
                treePeers.add(d);
            }
            for (int peer : treePeers) {
                sends.add(new Link(p.id(), peer));
                recvs.add(new Link(p.id(), peer));
            }
        }
        TransportSetup.Connected conns = setup.connect(bootstrap, new ArrayList<>(recvs), new ArrayList<>(sends),
                RING_TAG, deadline);
        Channel.Conns lookup = new Channel.Conns() {
            @Override
            public Conn send(int channel, int peer) {
                return conns.sends().get(new Link(channel, peer));
            }

            @Override
            public Conn recv(int channel, int peer) {
                return conns.recvs().get(new Link(channel, peer));
            }
        };
        List<Channel> channels = new ArrayList<>();
        for (ChannelPlan p : plans) {
            channels.add(new Channel(p, lookup, ctx.arena()));
        }
        Set<Conn> all = Collections.newSetFromMap(new IdentityHashMap<>());
        all.addAll(conns.sends().values());
        all.addAll(conns.recvs().values());
        KernelClasses.load();
        Engine engine = new Engine(ctx, setup, bootstrap, List.copyOf(channels), all, chooser, waiter, connectTimeoutMs,
                failure);
        if (chooser.mayChooseRecursiveDoubling(ctx.nranks())) {
            try {
                engine.connectRecursiveDoubling(deadline);
            } catch (RuntimeException | Error e) {
                engine.stop();
                throw e;
            }
        }
        return engine;
    }

    /**
     * Connects this rank to its recursive-doubling partners at init, as the rings and trees are:
     * connected on a first call instead, a partner that had died since init would hold the
     * survivors in the connect until its deadline rather than fail them at once.
     */
    private void connectRecursiveDoubling(Deadline deadline) {
        List<RecursiveDoubling.Exchange> plan = RecursiveDoubling.plan(ctx.rank(), ctx.nranks());
        List<Link> links = plan.stream().map(e -> new Link(P2P_CHANNEL, e.peer())).distinct().sorted(LINK_ORDER)
                .toList();
        connectPeers(links, links, deadline);
        rdPlan = plan;
    }

    private static final Comparator<Link> LINK_ORDER = Comparator.comparingInt(Link::channel).thenComparingInt(Link::peer);

    private static void check(TransportContext ctx, ChannelPlan p) {
        int n = ctx.nranks();
        int[] ring = p.ringUserRanks();
        String bad = null;
        boolean[] seen = new boolean[n];
        if (p.id() < 0 || p.id() >= 32) {
            bad = "channel id " + p.id() + " is not in 0..31";
        } else if (ring.length != n || ring[0] != ctx.rank()) {
            bad = "ring " + Arrays.toString(ring) + " must list all " + n + " ranks starting with rank " + ctx.rank();
        } else if (p.treeDown().length > ChannelPlan.MAX_TREE_ARITY) {
            bad = "tree has " + p.treeDown().length + " children, at most " + ChannelPlan.MAX_TREE_ARITY;
        }
        for (int k = 0; bad == null && k < n; k++) {
            if (ring[k] < 0 || ring[k] >= n || seen[ring[k]]) {
                bad = "ring " + Arrays.toString(ring) + " is not a permutation of the ranks";
            } else {
                seen[ring[k]] = true;
            }
        }
        List<Integer> treePeers = new ArrayList<>();
        if (p.treeUp() != -1) {
            treePeers.add(p.treeUp());
        }
        for (int d : p.treeDown()) {
            treePeers.add(d);
        }
        for (int k = 0; bad == null && k < treePeers.size(); k++) {
            int peer = treePeers.get(k);
            if (peer < 0 || peer >= n || peer == ctx.rank() || treePeers.indexOf(peer) != k) {
                bad = "tree peer " + peer + " is invalid (out of range, this rank, or listed twice)";
            }
        }
        if (bad != null) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "rank " + ctx.rank() + " " + p + ": " + bad,
                    "build channel plans from the topology's rings and trees");
        }
    }

    /**
     * Sets a collective's algorithm and protocol, unless it has them.
     *
     * @param op the collective
     * @return it, with the choice made
     */
    public CollOp choose(CollOp op) {
        if (chosen(op)) {
            return op;
        }
        AlgoChooser.Choice c = chooser.choose(op, ctx.nranks());
        return op.with(c.algorithm(), c.protocol(), Math.min(c.nChannels(), channels.size()));
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
                run(op);
            }
            if (!p2ps.isEmpty()) {
                runP2p(p2ps);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs one collective as its own batch: a blocking call's launch, without the lists.
     *
     * @param op the collective
     */
    public void launch(CollOp op) {
        lock.lock();
        try {
            run(op);
        } finally {
            lock.unlock();
        }
    }

    /** Runs a collective with its own choice, or the chooser's (kept apart from the op: no copy of it per call). */
    private void run(CollOp op) {
        if (chosen(op)) {
            runCollective(op, op.algorithm(), op.protocol(), op.nChannels());
        } else {
            AlgoChooser.Choice c = chooser.choose(op, ctx.nranks());
            runCollective(op, c.algorithm(), c.protocol(), c.nChannels());
        }
    }

    /** @return whether the op came with its algorithm, protocol and channels (a test's, a forced one) */
    private static boolean chosen(CollOp op) {
        return op.algorithm() != null && op.protocol() != null && op.nChannels() > 0;
    }

    private void runCollective(CollOp op, Algorithm algo, Protocol proto, int nChannels) {
        if (algo != Algorithm.RING && op.func() != CollOp.Func.ALL_REDUCE) {
            throw NcclException.of(Result.INVALID_USAGE, op.func() + " cannot run with the "
                    + algo.ncclName() + " algorithm", algo.ncclName()
                    + " runs AllReduce only; choose Ring for other collectives");
        }
        int n = ctx.nranks();
        if (n == 1) {
            copyLocal(op);
            return;
        }
        if (algo.recursive()) {
            runRecursive(op, algo, proto);
            return;
        }
        int nc = Math.min(nChannels, channels.size());
        if (nc == 1) {
            runChannel(op, algo, proto, 0, 1);
            return;
        }
        // The first channel to fail is the cause: it is recorded before the abort it triggers,
        // so the other channels' "aborted" failures never win.
        AtomicReference<Throwable> first = new AtomicReference<>();
        try {
            workers.run(nc, bid -> runChannelOrFail(op, algo, proto, bid, nc, first));
        } catch (RuntimeException e) {
            // recorded in first
        }
        if (first.get() instanceof RuntimeException e) {
            throw e;
        }
    }

    /** Runs one channel; a failure is recorded as the communicator's, which aborts the other channels and streams. */
    private void runChannelOrFail(CollOp op, Algorithm algo, Protocol proto, int bid, int nc,
                                  AtomicReference<Throwable> first) {
        try {
            runChannel(op, algo, proto, bid, nc);
        } catch (RuntimeException | Error e) {
            if (first.compareAndSet(null, e)) {
                NcclException n = e instanceof NcclException x ? x
                        : NcclException.of(Result.INTERNAL_ERROR, "channel " + bid + " failed: " + e, null, e);
                failure.fail("rank " + ctx.rank() + " channel " + bid, n);
            }
            throw e;
        }
    }

    private void runChannel(CollOp op, Algorithm algo, Protocol proto, int bid, int nc) {
        Channel ch = channels.get(bid);
        int ts = op.type().size();
        boolean bytes = op.func() == CollOp.Func.BROADCAST || op.func() == CollOp.Func.ALL_GATHER;
        Reducer reducer = bytes ? null : parts.reducer(op.type(), op.op());
        int unit = bytes ? 1 : ts;
        int stepBytes = ctx.buffs().stepSize(proto);
        if (algo == Algorithm.TREE) {
            Prims up = new Prims(ch.downRecv, ch.upSend == null ? new Conn[0] : new Conn[] {ch.upSend}, reducer, ts,
                    waiter, proto, ch.staging);
            Prims down = new Prims(ch.upRecv == null ? new Conn[0] : new Conn[] {ch.upRecv}, ch.downSend, reducer, ts,
                    waiter, proto, ch.staging);
            // NCCL sizes tree chunks by channel 0's depth (computeColl), the same on every channel.
            long chunk = Chunks.tree(proto, ts, op.count(), stepBytes, channels.get(0).treeDepth, nc);
            TreeKernels.allReduce(up, down, ch.upRecv == null, ch.downSend.length == 0, op.in(), op.out(), op.count(),
                    ts, chunk, nc, bid);
            return;
        }
        Prims p = parts.ring(bid, ch, op.type(), bytes ? null : op.op(), proto, waiter);
        RingKernels.Split split = ch.ringSplit(op.func(), proto, unit, proto.dataBytesPerStep(stepBytes), nc);
        p.beginInPlace();
        try {
            switch (op.func()) {
                case ALL_REDUCE -> RingKernels.allReduce(p, ch.ring, op.in(), op.out(), op.count(), ts, split);
                case REDUCE_SCATTER -> RingKernels.reduceScatter(p, ch.ring, op.in(), op.out(), op.count(), ts, split);
                case ALL_GATHER -> {
                    long bytesPerRank = op.count() * ts;
                    MemorySegment mine = op.out().asSlice(ctx.rank() * bytesPerRank, bytesPerRank);
                    boolean inPlace = Prims.same(op.in().asSlice(0, bytesPerRank), mine);
                    RingKernels.allGather(p, ch.ring, op.in(), op.out(), bytesPerRank, inPlace, split);
                }
                case BROADCAST -> RingKernels.broadcast(p, ch.ring, op.root(), op.in(), op.out(), op.count() * ts,
                        split);
                case REDUCE -> RingKernels.reduce(p, ch.ring, op.root(), op.in(), op.out(), op.count(), ts, split);
            }
            p.awaitInPlaceReads();
        } finally {
            p.endInPlace();
        }
    }

    /**
     * An AllReduce by recursive doubling or halving and doubling, on the calling thread, over the
     * point-to-point connections to this rank's partners (made at init, {@link #connectRecursiveDoubling}).
     */
    private void runRecursive(CollOp op, Algorithm algo, Protocol proto) {
        if (rdPlan == null) {
            throw NcclException.of(Result.INVALID_USAGE, "rank " + ctx.rank() + " of " + ctx.nranks()
                    + " has no recursive-doubling connections", "recursive doubling applies to 2 or 4-"
                    + AlgoChooser.MAX_RECDBL_RANKS + " ranks on a node (2-" + AlgoChooser.MAX_RECDBL_RANKS
                    + " across nodes, or named alone in NCCL_ALGO); choose Ring or Tree otherwise");
        }
        Prims[] prims = parts.recursive(rdPlan, p2pRecv, p2pSend, op.type(), op.op(), proto, waiter,
                channels.get(0).staging);
        if (algo == Algorithm.HALVING_DOUBLING) {
            HalvingDoubling.allReduce(ctx.rank(), ctx.nranks(), rdPlan, prims, op.in(), op.out(), op.count(),
                    op.type().size());
        } else {
            RecursiveDoubling.allReduce(rdPlan, prims, op.in(), op.out(), op.count(), op.type().size());
        }
    }

    /**
     * One rank: the collective is a plain copy, as NCCL 2.10's enqueue makes it
     * ({@code cudaMemcpyAsync} when {@code nRanks == 1}), AVG included: over one rank it changes
     * no value, and the copy keeps NaN payloads as NCCL does.
     */
    private void copyLocal(CollOp op) {
        long bytes = op.count() * op.type().size();
        if (!Prims.sameStart(op.in(), op.out())) {
            MemorySegment.copy(op.in(), 0, op.out(), 0, bytes);
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
        connectPeers(recvs, sends, Deadline.afterMillis(connectTimeoutMs));
    }

    /** Connects the point-to-point connections named that are not connected yet; every peer named does the same. */
    private void connectPeers(List<Link> recvLinks, List<Link> sendLinks, Deadline deadline) {
        List<Link> recvs = recvLinks.stream().filter(l -> !p2pRecv.containsKey(l.peer())).toList();
        List<Link> sends = sendLinks.stream().filter(l -> !p2pSend.containsKey(l.peer())).toList();
        if (recvs.isEmpty() && sends.isEmpty()) {
            return;
        }
        TransportSetup.Connected c = setup.connect(bootstrap, recvs, sends, P2P_TAG, deadline);
        synchronized (connsLock) {
            c.sends().forEach((l, conn) -> p2pSend.put(l.peer(), conn));
            c.recvs().forEach((l, conn) -> p2pRecv.put(l.peer(), conn));
        }
    }

    /**
     * @return channel {@code id}'s connection from its ring predecessor ({@code null} with one
     *     rank): tests look at its buffers
     */
    Conn ringRecv(int id) {
        return channels.get(id).ringRecv;
    }

    /** @return how many channels were connected */
    int channelCount() {
        return channels.size();
    }

    /** @return a short description of the connections, for logs */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        for (Channel ch : channels) {
            sb.append(ch.ringSend == null ? "channel " + ch.id + " local" : ch.ringSend.description()).append("; ");
        }
        return sb.toString();
    }

    /**
     * Stops the channel workers and closes the connections. A worker still running after the
     * bound (the abort flag ends every wait, so only a bug or a stuck plugin keeps one) keeps
     * the connections open: their memory is not freed under it.
     *
     * @return whether everything was released
     */
    public boolean stop() {
        if (workers != null && !workers.stop(STOP_MILLIS)) {
            Log.warn("rank %d: channel workers still running after %d ms; their connections are not freed", ctx.rank(),
                    STOP_MILLIS);
            return false;
        }
        synchronized (connsLock) {
            connsClosed = true;
            if (ctx.abort() != null) {
                ctx.abort().remove(markFailed);
            }
            channelConns.forEach(Conn::close);
            p2pSend.values().forEach(Conn::close);
            p2pRecv.values().forEach(Conn::close);
        }
        return true;
    }

    @Override
    public void close() {
        stop();
    }

}
