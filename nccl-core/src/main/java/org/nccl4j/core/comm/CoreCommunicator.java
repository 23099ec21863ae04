package org.nccl4j.core.comm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.Completion;
import org.nccl4j.DataType;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.core.device.DeviceCollOp;
import org.nccl4j.core.device.DeviceCollectives;
import org.nccl4j.Device;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;
import org.nccl4j.Stream;
import org.nccl4j.core.bootstrap.Bootstrap;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.op.CollOp;
import org.nccl4j.core.enqueue.Enqueue;
import org.nccl4j.core.enqueue.HostCollectives;
import org.nccl4j.core.enqueue.EnqueueTarget;
import org.nccl4j.core.kernel.Engine;
import org.nccl4j.core.net.InitNet;
import org.nccl4j.core.net.NetSelection;
import org.nccl4j.core.proxy.Proxy;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.peer.RankLayout;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.CommFailure;
import org.nccl4j.core.wait.Deadline;

/**
 * nccl-core's communicator ({@code struct ncclComm}): what init established, the bootstrap it
 * keeps for later exchanges, the abort flag every wait observes, and the first asynchronous error.
 */
public final class CoreCommunicator implements Communicator, EnqueueTarget {
    /** How long a failed or aborted communicator spends telling its peers so as it closes. */
    private static final long GONE_NOTICE_MS = 200;
    private final int rank;
    private final int nranks;
    private final Device device;
    private final NetSelection net;
    private final List<PeerInfo> peers;
    private final RankLayout layout;
    private final Bootstrap bootstrap;
    private final AbortFlag abortFlag;
    private final Config config;
    private final Duration initTime;
    private final CommFailure failure;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Engine engine;
    private final DeviceCollectives onDevice;
    private final Arena arena;
    private final AtomicReference<Proxy> proxy;
    private final CommConfig commConfig;
    private final ChildComms children;
    /** How many splits and shrinks this rank has started: every rank starts them in the same order. */
    private final AtomicInteger childSeq = new AtomicInteger();
    /** The last blocking AllReduce's op (see {@link #allReduce(MemorySegment, MemorySegment, long, DataType, RedOp)}). */
    private CollOp lastBlockingAllReduce;
    /** The last array reduced in place, with its segment (see {@link #segmentOf}). */
    private ArrayView lastArray;

    /**
     * @param rank      this rank
     * @param nranks    number of ranks
     * @param device    this rank's device
     * @param net       the network chosen by initNet, released when it is destroyed
     * @param peers     every rank's AllGather1 info
     * @param layout    where the ranks are
     * @param bootstrap the bootstrap, kept open for later exchanges
     * @param abortFlag the abort flag shared by everything this communicator waits on
     * @param config    the communicator's parameters
     * @param initTime  how long init took
     * @param engine    the connected channels of the host engine, or {@code null} with {@code onDevice}
     * @param onDevice  the device backend's collectives, or {@code null} with {@code engine} (the host
     *                  backend's {@link HostCollectives} then runs it)
     * @param arena     owns the connection memory
     * @param proxy     the proxy thread, if one was started
     * @param failure   where background failures are recorded
     * @param commConfig the settings it was created with (its children's default)
     * @param children  builds its split and shrunk communicators
     */
    public CoreCommunicator(int rank, int nranks, Device device, NetSelection net, List<PeerInfo> peers,
                            RankLayout layout, Bootstrap bootstrap, AbortFlag abortFlag, Config config,
                            Duration initTime, Engine engine, DeviceCollectives onDevice, Arena arena,
                            AtomicReference<Proxy> proxy, CommFailure failure, CommConfig commConfig,
                            ChildComms children) {
        this.rank = rank;
        this.nranks = nranks;
        this.device = device;
        this.net = net;
        this.peers = List.copyOf(peers);
        this.layout = layout;
        this.bootstrap = bootstrap;
        this.abortFlag = abortFlag;
        this.config = config;
        this.initTime = initTime;
        this.engine = engine;
        this.arena = arena;
        this.proxy = proxy;
        this.failure = failure;
        this.commConfig = commConfig;
        this.children = children;
        // The host backend's implementation of the device SPI runs the host engine.
        this.onDevice = onDevice != null ? onDevice
                : new HostCollectives(this, engine, device, abortFlag, config.integer(Params.OP_TIMEOUT_MS) * 1_000_000L);
    }

    @Override
    public int count() {
        checkOpen();
        return nranks;
    }

    @Override
    public int userRank() {
        checkOpen();
        return rank;
    }

    @Override
    public Device device() {
        checkOpen();
        return device;
    }

    @Override
    public int nodeCount() {
        checkOpen();
        return layout.nodeCount();
    }

    @Override
    public String netName() {
        checkOpen();
        return net.net().name();
    }

    @Override
    public Result asyncError() {
        NcclException e = failure.get();
        return e == null ? Result.SUCCESS : e.result();
    }

    @Override
    public void onAsyncError(Consumer<? super NcclException> listener) {
        Objects.requireNonNull(listener, "listener");
        checkOpen();
        failure.listen(listener);
    }

    @Override
    public Communicator split(int color, int key, CommConfig config) {
        checkOpen();
        if (color < 0 && color != SPLIT_NOCOLOR) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "split color " + color + " of rank " + rank + " is negative",
                    "use a color >= 0, or SPLIT_NOCOLOR (-1) for a rank that joins no new communicator");
        }
        return children.split(this, color, key, config != null ? config : commConfig);
    }

    @Override
    public Communicator shrink(CommConfig config, int... excluded) {
        checkOpen();
        Objects.requireNonNull(excluded, "excluded");
        int[] ex = Arrays.stream(excluded).sorted().distinct().toArray();
        for (int r : ex) {
            if (r < 0 || r >= nranks) {
                throw NcclException.of(Result.INVALID_ARGUMENT, "shrink: excluded rank " + r + " is not in [0, " + nranks
                        + ")", "list ranks of this communicator");
            }
            if (r == rank) {
                throw NcclException.of(Result.INVALID_ARGUMENT, "shrink: rank " + rank + " excludes itself",
                        "only the ranks that stay call shrink; an excluded rank closes or aborts its communicator");
            }
        }
        return children.shrink(this, ex, config != null ? config : commConfig);
    }

    /** @return the number of the next split or shrink, the same on every rank that starts it */
    public int nextChildSeq() {
        return childSeq.getAndIncrement();
    }

    /** @return the first asynchronous failure, or {@code null} */
    public NcclException asyncException() {
        return failure.get();
    }

    /**
     * Records a background failure (the first one sticks) and aborts the communicator's waits.
     *
     * @param where who failed, for the log
     * @param e     the failure
     */
    @Override
    public void fail(String where, NcclException e) {
        failure.fail(where, e);
    }

    /** @return every rank's AllGather1 info, index = rank */
    public List<PeerInfo> peers() {
        return peers;
    }

    /** @return where the ranks are */
    public RankLayout layout() {
        return layout;
    }

    /** @return the bootstrap, for exchanges after init */
    public Bootstrap bootstrap() {
        return bootstrap;
    }

    /** @return the abort flag every wait of this communicator observes */
    public AbortFlag abortFlag() {
        return abortFlag;
    }

    /** @return the communicator's parameters */
    public Config config() {
        return config;
    }

    /** @return how long init took */
    public Duration initTime() {
        return initTime;
    }

    /** @return this rank, readable after close (for messages) */
    @Override
    public int rank() {
        return rank;
    }

    /** @return the engine that runs this communicator's operations */
    @Override
    public Engine engine() {
        return engine;
    }

    @Override
    public DeviceCollectives onDevice() {
        return onDevice;
    }

    /**
     * @throws NcclException if the communicator was destroyed, aborted, or hit an async error
     */
    @Override
    public void checkUsable() {
        checkOpen();
        if (abortFlag.isSet()) {
            abortFlag.check("enqueue on rank " + rank);
        }
        NcclException e = failure.get();
        if (e != null) {
            throw NcclException.of(e.result(), "communicator of rank " + rank + " failed earlier: " + e.detail(),
                    "abort it and create a new one", e);
        }
    }

    @Override
    public Stream createStream() {
        checkOpen();
        return onDevice.createStream();
    }

    @Override
    public Stream defaultStream() {
        checkOpen();
        return onDevice.defaultStream();
    }

    @Override
    public Stream wrapStream(long handle) {
        checkOpen();
        return onDevice.wrapStream(handle);
    }

    @Override
    public DeviceBuffer allocate(long bytes) {
        checkOpen();
        if (bytes < 1) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "cannot allocate " + bytes + " bytes", "ask for at least 1");
        }
        return onDevice.allocate(bytes);
    }

    @Override
    public DeviceBuffer wrap(long address, long bytes) {
        checkOpen();
        if (address == 0 || bytes < 0) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "cannot wrap " + bytes + " bytes at 0x"
                    + Long.toHexString(address), "pass a device address and its length");
        }
        return onDevice.wrap(address, bytes);
    }

    @Override
    public Completion allReduce(DeviceBuffer sendbuff, DeviceBuffer recvbuff, long count, DataType type, RedOp op,
                                Stream stream) {
        return Enqueue.deviceCollective(this, new DeviceCollOp(DeviceCollOp.Kind.ALL_REDUCE, sendbuff, recvbuff, count,
                type, op, -1), stream);
    }

    @Override
    public Completion broadcast(DeviceBuffer sendbuff, DeviceBuffer recvbuff, long count, DataType type, int root,
                                Stream stream) {
        return Enqueue.deviceCollective(this, new DeviceCollOp(DeviceCollOp.Kind.BROADCAST,
                rank == root ? sendbuff : recvbuff, recvbuff, count, type, null, root), stream);
    }

    @Override
    public Completion reduce(DeviceBuffer sendbuff, DeviceBuffer recvbuff, long count, DataType type, RedOp op,
                             int root, Stream stream) {
        return Enqueue.deviceCollective(this, new DeviceCollOp(DeviceCollOp.Kind.REDUCE, sendbuff,
                rank == root ? recvbuff : sendbuff, count, type, op, root), stream);
    }

    @Override
    public Completion allGather(DeviceBuffer sendbuff, DeviceBuffer recvbuff, long sendcount, DataType type,
                                Stream stream) {
        return Enqueue.deviceCollective(this, new DeviceCollOp(DeviceCollOp.Kind.ALL_GATHER, sendbuff, recvbuff,
                sendcount, type, null, -1), stream);
    }

    @Override
    public Completion reduceScatter(DeviceBuffer sendbuff, DeviceBuffer recvbuff, long recvcount, DataType type,
                                    RedOp op, Stream stream) {
        return Enqueue.deviceCollective(this, new DeviceCollOp(DeviceCollOp.Kind.REDUCE_SCATTER, sendbuff, recvbuff,
                recvcount, type, op, -1), stream);
    }

    @Override
    public Completion send(DeviceBuffer sendbuff, long count, DataType type, int peer, Stream stream) {
        return Enqueue.deviceP2p(this, true, sendbuff, count, type, peer, stream);
    }

    @Override
    public Completion recv(DeviceBuffer recvbuff, long count, DataType type, int peer, Stream stream) {
        return Enqueue.deviceP2p(this, false, recvbuff, count, type, peer, stream);
    }

    @Override
    public Completion allToAll(DeviceBuffer sendbuff, DeviceBuffer recvbuff, long count, DataType type,
                               Stream stream) {
        return Enqueue.deviceAllToAll(this, sendbuff, recvbuff, count, type, stream);
    }

    /**
     * Blocking: on an idle stream the calling thread runs it (no hand-off to the stream thread and
     * back). A training loop passes the same arguments every step: their op is made once and
     * reused (the same segment objects, compared by identity), so such a call allocates nothing
     * and brings no young-GC pauses (measured: 8 B calls back to back on 2 cores, a 20-25 ms pause
     * every ~10^6 calls when each allocated its op and slices).
     */
    @Override
    public void allReduce(MemorySegment sendbuff, MemorySegment recvbuff, long count, DataType type, RedOp op) {
        CollOp last = lastBlockingAllReduce;
        if (last == null || last.in() != sendbuff || last.out() != recvbuff || last.count() != count
                || last.type() != type || last.op() != op) {
            last = new CollOp(CollOp.Func.ALL_REDUCE, sendbuff, recvbuff, count, type, op, -1);
            lastBlockingAllReduce = last; // immutable: a racing thread sees this one or its own
        }
        Enqueue.collectiveAndWait(this, last, defaultStream());
    }

    @Override
    public void allReduce(float[] data, RedOp op) {
        MemorySegment s = segmentOf(data);
        allReduce(s, s, data.length, DataType.FLOAT32, op);
    }

    @Override
    public void allReduce(double[] data, RedOp op) {
        MemorySegment s = segmentOf(data);
        allReduce(s, s, data.length, DataType.FLOAT64, op);
    }

    @Override
    public void allReduce(int[] data, RedOp op) {
        MemorySegment s = segmentOf(data);
        allReduce(s, s, data.length, DataType.INT32, op);
    }

    @Override
    public void allReduce(long[] data, RedOp op) {
        MemorySegment s = segmentOf(data);
        allReduce(s, s, data.length, DataType.INT64, op);
    }

    /**
     * The segment over an array, the same object as last time for the same array: a training
     * loop reduces one gradient array every step, and with the same segment its blocking call
     * reuses its op too (nothing allocated a step).
     */
    private MemorySegment segmentOf(Object array) {
        ArrayView last = lastArray;
        if (last != null && last.array() == array) {
            return last.segment();
        }
        MemorySegment s = switch (array) {
            case float[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            default -> throw new IllegalArgumentException("not an array of float, double, int or long: " + array);
        };
        lastArray = new ArrayView(array, s); // one immutable pair: a racing thread sees a whole one
        return s;
    }

    /** An array and the segment over it. */
    private record ArrayView(Object array, MemorySegment segment) {
    }

    @Override
    public Completion allReduce(MemorySegment sendbuff, MemorySegment recvbuff, long count, DataType type, RedOp op,
                                Stream stream) {
        return Enqueue.collective(this, new CollOp(CollOp.Func.ALL_REDUCE, sendbuff, recvbuff, count, type, op, -1), stream);
    }

    @Override
    public Completion broadcast(MemorySegment sendbuff, MemorySegment recvbuff, long count, DataType type, int root,
                                Stream stream) {
        return Enqueue.collective(this, new CollOp(CollOp.Func.BROADCAST, rank == root ? sendbuff : recvbuff, recvbuff,
                count, type, null, root), stream);
    }

    @Override
    public Completion reduce(MemorySegment sendbuff, MemorySegment recvbuff, long count, DataType type, RedOp op,
                             int root, Stream stream) {
        return Enqueue.collective(this, new CollOp(CollOp.Func.REDUCE, sendbuff, rank == root ? recvbuff : sendbuff,
                count, type, op, root), stream);
    }

    @Override
    public Completion allGather(MemorySegment sendbuff, MemorySegment recvbuff, long sendcount, DataType type,
                                Stream stream) {
        return Enqueue.collective(this, new CollOp(CollOp.Func.ALL_GATHER, sendbuff, recvbuff, sendcount, type, null, -1),
                stream);
    }

    @Override
    public Completion reduceScatter(MemorySegment sendbuff, MemorySegment recvbuff, long recvcount, DataType type,
                                    RedOp op, Stream stream) {
        return Enqueue.collective(this, new CollOp(CollOp.Func.REDUCE_SCATTER, sendbuff, recvbuff, recvcount, type, op,
                -1), stream);
    }

    @Override
    public Completion send(MemorySegment sendbuff, long count, DataType type, int peer, Stream stream) {
        return Enqueue.p2p(this, true, sendbuff, count, type, peer, stream);
    }

    @Override
    public Completion recv(MemorySegment recvbuff, long count, DataType type, int peer, Stream stream) {
        return Enqueue.p2p(this, false, recvbuff, count, type, peer, stream);
    }

    @Override
    public Completion allToAll(MemorySegment sendbuff, MemorySegment recvbuff, long count, DataType type,
                               Stream stream) {
        return Enqueue.allToAll(this, sendbuff, recvbuff, count, type, stream);
    }

    @Override
    public void abort() {
        abortFlag.set("aborted by ncclCommAbort");
        if (closed.compareAndSet(false, true)) {
            Log.trace(Subsys.INIT, "Destroying comm rank %d nranks %d (abort)", rank, nranks);
            teardown(false);
            Log.info(Subsys.INIT, "comm rank %d nranks %d - Abort COMPLETE", rank, nranks);
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            // NCCL's commDestroy traces the same first: where a destroy began, for the fault matrix too.
            Log.trace(Subsys.INIT, "Destroying comm rank %d nranks %d", rank, nranks);
            teardown(true);
            Log.info(Subsys.INIT, "comm rank %d nranks %d - Destroy COMPLETE", rank, nranks);
        }
    }

    /**
     * Streams first (their work ends, bounded by the op deadline, or fails at once on the abort
     * flag), then proxy, connections, bootstrap. Memory is freed only once no thread can touch
     * it: a stream, worker or proxy thread still running keeps it (and says so at WARN).
     */
    private void teardown(boolean graceful) {
        failure.clearListeners();
        lastBlockingAllReduce = null; // the user's buffers are not kept reachable by a closed communicator
        lastArray = null;
        if (abortFlag.isSet()) {
            // Peers waiting for a message from this rank (a connection made on first use) fail now.
            bootstrap.announceGone(Deadline.afterMillis(GONE_NOTICE_MS));
        }
        if (!graceful) {
            bootstrap.abort();
        }
        // Bounded: streams and kernels end by the op deadline, and at once after an abort.
        onDevice.close();
        boolean stopped = onDevice.quiescent();
        Proxy p = proxy.get();
        if (stopped) {
            stopped = p == null || p.stop();
            stopped &= engine == null || engine.stop();
        }
        if (graceful) {
            bootstrap.close();
        }
        if (stopped) {
            arena.close();
            InitNet.release(net);
        } else {
            Log.warn("comm rank %d: threads still running at %s; its connection memory and network are kept", rank,
                    graceful ? "destroy" : "abort");
        }
    }

    private void checkOpen() {
        if (closed.get()) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "communicator of rank " + rank + " has already been destroyed",
                    "do not use a communicator after close() or abort()");
        }
    }

    @Override
    public String toString() {
        return "Communicator[rank " + rank + "/" + nranks + ", " + device + ", net " + net.net().name() + "]";
    }
}
