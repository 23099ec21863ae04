package org.nccl4j.core.device.gpu.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import org.nccl4j.Completion;
import org.nccl4j.DataType;
import org.nccl4j.Device;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.Stream;
import org.nccl4j.core.debug.Level;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.device.DeviceCollOp;
import org.nccl4j.core.device.DeviceCollPlan;
import org.nccl4j.core.device.DeviceCollectives;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.core.device.DeviceP2pOp;
import org.nccl4j.core.device.gpu.GpuRuntime;
import org.nccl4j.core.device.gpu.GpuPointer;

/**
 * One rank's collectives on its GPU: the connected channels (rings and trees), the kernels, the streams it made, and
 * the abort flag in host-mapped memory that every waiting kernel polls. A collective is one
 * kernel launch of one block per channel on the caller's stream, then an event; nothing blocks.
 */
public final class GpuCollectives implements DeviceCollectives {
    /** Threads per block of the kernels ({@code N4J_THREADS}). */
    static final int THREADS = 512;
    private static final VarHandle FLAG = ValueLayout.JAVA_INT.varHandle();

    private final GpuRuntime ctx;
    private final Device device;
    private final DeviceCommContext comm;
    private final KernelModule kernels;
    private final ChannelConns channels;
    /** Send/Recv connections to every peer ({@code null} with one rank). */
    private final PeerChannels peers;
    private final GroupLaunch group;
    private final int stepBytes;
    private final long abortHost;
    private final long abortDevice;
    private final MemorySegment args;
    private final Arena arena = Arena.ofShared();
    private final List<GpuStream> streams = new CopyOnWriteArrayList<>();
    /** Completions whose event may still be alive, oldest first: users often never await them. */
    private final ArrayDeque<GpuCompletion> pending = new ArrayDeque<>();
    private final GpuStream defaultStream;
    private final AtomicBoolean closed = new AtomicBoolean();

    private GpuCollectives(GpuRuntime ctx, Device device, DeviceCommContext comm, KernelModule kernels,
                            ChannelConns channels, PeerChannels peers, int stepBytes, long abortHost) {
        this.ctx = ctx;
        this.device = device;
        this.comm = comm;
        this.kernels = kernels;
        this.channels = channels;
        this.peers = peers;
        this.stepBytes = stepBytes;
        this.abortHost = abortHost;
        this.abortDevice = ctx.devicePointerOf(abortHost);
        this.args = arena.allocate(CollArgs.COLL_BYTES, 8);
        this.group = new GroupLaunch(this, ctx, comm, peers, kernels.sendRecv(), abortDevice, stepBytes, arena);
        this.defaultStream = new GpuStream(this, ctx, ctx.streamCreate(), true);
        streams.add(defaultStream);
        MemorySegment flag = MemorySegment.ofAddress(abortHost).reinterpret(4);
        comm.onAbort(() -> FLAG.setVolatile(flag, 0L, 1));
        KernelWatchdog.watch(this);
    }

    /**
     * Connects a communicator's rings on this GPU.
     *
     * @param ctx      this rank's context
     * @param device   this rank's device, as the communicator reports it
     * @param comm     the communicator being built
     * @param fatbin   the kernels
     * @param contexts contexts of this process's GPUs by ordinal (peer access)
     * @return the collectives
     */
    public static GpuCollectives connect(GpuRuntime ctx, Device device, DeviceCommContext comm, byte[] fatbin,
                                          IntFunction<GpuRuntime> contexts) {
        KernelModule kernels = KernelModule.of(ctx, fatbin);
        int stepBytes = comm.stepBytes(Protocol.SIMPLE);
        ChannelConns channels = comm.nranks() > 1 ? ChannelConns.connect(ctx, comm, contexts) : null;
        PeerChannels peers = null;
        long abortHost = 0;
        try {
            peers = comm.nranks() > 1 ? PeerChannels.connect(ctx, comm, stepBytes, contexts) : null;
            abortHost = ctx.hostAllocMapped(64);
            return new GpuCollectives(ctx, device, comm, kernels, channels, peers, stepBytes, abortHost);
        } catch (RuntimeException | Error e) {
            if (abortHost != 0) {
                ctx.freeHost(abortHost);
            }
            if (peers != null) {
                peers.close();
            }
            if (channels != null) {
                channels.close();
            }
            throw e;
        }
    }

    long opTimeoutNanos() {
        return comm.opTimeoutNanos();
    }

    String abortReason() {
        return comm.abortReason();
    }

    void fail(String where, NcclException e) {
        comm.fail("rank " + comm.rank() + " " + where, e);
    }

    /** An operation that finished after an abort may have ended early: its data is not to be trusted. */
    void checkFailure(String what) {
        String reason = comm.abortReason();
        if (reason != null) {
            throw NcclException.of(Result.INVALID_USAGE, what + " interrupted: communicator " + reason,
                    "the communicator was aborted; create a new one");
        }
    }

    @Override
    public DeviceBuffer allocate(long bytes) {
        return new GpuBuffer(ctx, device, ctx.memAlloc(bytes), bytes, true);
    }

    @Override
    public DeviceBuffer wrap(long address, long bytes) {
        GpuPointer info = ctx.pointerInfo(address);
        if (info.memoryType() != GpuPointer.DEVICE || info.device() != ctx.device()) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "0x" + Long.toHexString(address) + " is not device memory of "
                    + device + " (memory type " + info.memoryType() + ", device " + info.device() + ")",
                    "wrap memory allocated on this communicator's GPU (NCCL_CHECK_POINTERS' check)");
        }
        return new GpuBuffer(ctx, device, address, bytes, false);
    }

    @Override
    public Stream createStream() {
        GpuStream s = new GpuStream(this, ctx, ctx.streamCreate(), true);
        streams.add(s);
        return s;
    }

    @Override
    public synchronized Stream wrapStream(long handle) {
        // A training loop may wrap its framework's stream every step: one wrapper per handle.
        for (GpuStream open : streams) {
            if (open.handle() == handle && !open.isClosed()) {
                return open;
            }
        }
        GpuStream s = new GpuStream(this, ctx, handle, false);
        streams.add(s);
        return s;
    }

    @Override
    public Stream defaultStream() {
        return defaultStream;
    }

    /** @return {@code stream}, if it is an open stream of this communicator */
    GpuStream own(Stream stream) {
        if (!(stream instanceof GpuStream s) || s.owner() != this || s.isClosed()) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "stream " + stream + " is not an open stream of rank "
                    + comm.rank() + "'s communicator", "use comm.createStream(), comm.wrapStream() or defaultStream()");
        }
        return s;
    }

    /** Records an event after the work enqueued on {@code s} so far: its completion. */
    synchronized GpuCompletion recordCompletion(GpuStream s, String what) {
        long event = ctx.eventCreate(false);
        ctx.eventRecord(event, s.handle());
        return track(new GpuCompletion(this, ctx, event, what));
    }

    @Override
    public void checkGroup(List<DeviceCollOp> colls, List<DeviceP2pOp> p2ps, Stream stream) {
        group.check(p2ps, stream);
    }

    @Override
    public Completion launchGroup(List<DeviceCollOp> colls, List<DeviceP2pOp> p2ps, Stream stream) {
        return group.launch(colls, p2ps, stream);
    }

    @Override
    public Completion launch(DeviceCollOp op, Stream stream) {
        GpuStream s = own(stream);
        boolean bytes = op.kind() == DeviceCollOp.Kind.BROADCAST || op.kind() == DeviceCollOp.Kind.ALL_GATHER;
        long count = bytes ? op.count() * op.type().size() : op.count();
        int n = comm.nranks();
        synchronized (this) {
            if (n == 1) {
                copyLocal(op, s);
            } else {
                DeviceCollPlan plan = comm.plan(op);
                if (Log.get().enabled(Level.TRACE, Subsys.COLL)) {
                    Log.trace(Subsys.COLL, "%s: count %d -> algo %s proto %s nchannels %d chunk %d align %d",
                            op.kind().ncclName(), op.count(), plan.tree() ? "Tree" : "Ring", plan.protocol(),
                            plan.nChannels(), plan.chunk(), plan.align());
                }
                CollArgs.coll(args, op.send().address(), op.recv().address(), count, channels.address(), abortDevice,
                        plan, n, op.root(), bytes ? DataType.UINT8.code() : op.type().code(), bytes ? 0 : op.op().code());
                ctx.launch(kernels.collective(op.kind(), plan), plan.nChannels(), THREADS, 0, s.handle(), args.address(),
                        CollArgs.COLL_BYTES);
                channels.wake();
            }
            return recordCompletion(s, op.kind().ncclName() + " of rank " + comm.rank());
        }
    }

    /**
     * Fails the communicator when some of its work was enqueued more than the op timeout ago and
     * has not finished ({@link KernelWatchdog}); the abort flag then ends its kernels.
     *
     * @param now the watchdog's clock ({@link System#nanoTime})
     */
    void failOverdue(long now) {
        GpuCompletion late = null;
        synchronized (this) {
            if (closed.get() || comm.abortReason() != null) {
                return;
            }
            for (GpuCompletion c : pending) {
                if (now - c.enqueuedAt > comm.opTimeoutNanos() && !c.isDone()) {
                    late = c;
                    break;
                }
            }
        }
        if (late != null) {
            fail("watchdog", NcclException.of(Result.TIMEOUT, late.what() + " did not finish within "
                    + comm.opTimeoutNanos() / 1_000_000 + " ms of its enqueue: the communicator is aborted",
                    "a peer may not have called the same collective, or its data never arrived; "
                            + "NCCL4J_OP_TIMEOUT_MS sets the bound"));
        }
    }

    /**
     * Keeps a new completion and releases the events of the oldest ones that finished, so that
     * a loop that only synchronizes its stream does not pile up events. Called under the lock.
     */
    private GpuCompletion track(GpuCompletion c) {
        while (!pending.isEmpty() && pending.peekFirst().isDone()) {
            pending.pollFirst();
        }
        pending.addLast(c);
        return c;
    }

    /** One rank: every collective is a copy (AVG over one rank changes nothing). */
    private void copyLocal(DeviceCollOp op, GpuStream s) {
        long bytes = op.count() * op.type().size();
        if (bytes > 0 && op.send().address() != op.recv().address()) {
            ctx.copyDtoD(op.recv().address(), op.send().address(), bytes, s.handle());
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        KernelWatchdog.forget(this);
        boolean idle = true;
        for (GpuStream s : streams) {
            idle &= waitIdle(s);
        }
        if (!idle) {
            // Kernels still wait for peers: stop them, then give them the abort bound.
            comm.fail("destroy", NcclException.of(Result.INVALID_USAGE, "destroyed while kernels were running", null));
            idle = true;
            for (GpuStream s : streams) {
                idle &= waitIdle(s);
            }
        }
        for (GpuStream s : streams) {
            s.release(idle);
        }
        synchronized (this) {
            pending.forEach(GpuCompletion::release);
            pending.clear();
        }
        if (idle) {
            if (channels != null) {
                channels.close();
            }
            if (peers != null) {
                peers.close();
            }
            ctx.freeHost(abortHost);
            arena.close();
        } else {
            Log.warn("rank %d: kernels still running at destroy; device memory kept", comm.rank());
        }
    }

    /** A stream the user already closed was synchronized then (and may be destroyed): its outcome stands. */
    private boolean waitIdle(GpuStream s) {
        if (s.isClosed()) {
            return !s.leftRunning();
        }
        try {
            return s.synchronize(comm.abortReason() == null ? comm.opTimeoutNanos() : 2_000_000_000L);
        } catch (NcclException e) {
            return s.query();
        }
    }

    /** @return this process's completions whose events are not destroyed yet (tests watch it for leaks) */
    public static int liveCompletions() {
        return GpuCompletion.LIVE.get();
    }
}
