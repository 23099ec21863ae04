package org.nccl4j.core.enqueue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.nccl4j.Completion;
import org.nccl4j.Device;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.Stream;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.device.DeviceCollOp;
import org.nccl4j.core.device.DeviceCollectives;
import org.nccl4j.core.device.DeviceP2pOp;
import org.nccl4j.core.device.HostDeviceBuffer;
import org.nccl4j.core.kernel.Engine;
import org.nccl4j.core.op.CollOp;
import org.nccl4j.core.op.P2pOp;
import org.nccl4j.core.stream.HostCompletion;
import org.nccl4j.core.stream.HostStream;
import org.nccl4j.core.wait.AbortFlag;

/**
 * The host backend's implementation of the device SPI: its "device memory" is host memory
 * ({@link HostDeviceBuffer}), its streams are {@link HostStream}s, and a launch is one task on the
 * stream that runs the host engine's kernels over the connected channels. Every operation of a
 * host communicator, MemorySegment or DeviceBuffer form, reaches the engine through
 * {@link #launchGroup}, as a GPU backend's reach its kernels.
 */
public final class HostCollectives implements DeviceCollectives {
    /** After abort every wait ends within milliseconds; this bounds a thread that does not. */
    private static final long ABORT_STOP_MILLIS = 2_000;

    private final EnqueueTarget comm;
    private final Engine engine;
    private final Device device;
    private final AbortFlag abort;
    private final long opTimeoutNanos;
    private final List<HostStream> streams = new CopyOnWriteArrayList<>();
    private final HostStream defaultStream;
    private volatile boolean stopped = true;
    /** A launch the caller runs inline that a wait gave up on fails the communicator, as a queued one does. */
    private final HostStream.Stalled failOnStall;

    /**
     * @param comm           the communicator (rank, failure recording)
     * @param engine         its connected host engine
     * @param device         its device
     * @param abort          its abort flag
     * @param opTimeoutNanos the operation deadline of its streams
     */
    public HostCollectives(EnqueueTarget comm, Engine engine, Device device, AbortFlag abort, long opTimeoutNanos) {
        this.comm = comm;
        this.engine = engine;
        this.device = device;
        this.abort = abort;
        this.opTimeoutNanos = opTimeoutNanos;
        this.defaultStream = new HostStream(opTimeoutNanos);
        streams.add(defaultStream);
        this.failOnStall = e -> comm.fail("rank " + comm.rank() + " launch on the calling thread", e);
    }

    @Override
    public DeviceBuffer allocate(long bytes) {
        return HostDeviceBuffer.allocate(device, bytes);
    }

    @Override
    public DeviceBuffer wrap(long address, long bytes) {
        return HostDeviceBuffer.wrap(device, address, bytes);
    }

    @Override
    public Stream createStream() {
        HostStream s = new HostStream(opTimeoutNanos);
        streams.add(s);
        return s;
    }

    @Override
    public Stream wrapStream(long handle) {
        throw NcclException.of(Result.INVALID_USAGE, "the " + device.backend() + " device has no native streams",
                "use createStream() on a " + device.backend() + " communicator");
    }

    @Override
    public Stream defaultStream() {
        return defaultStream;
    }

    @Override
    public Completion launch(DeviceCollOp op, Stream stream) {
        return launchGroup(List.of(op), List.of(), stream);
    }

    /** Host streams and host memory only; the engine checks the rest as it launches. */
    @Override
    public void checkGroup(List<DeviceCollOp> colls, List<DeviceP2pOp> p2ps, Stream stream) {
        own(stream);
        for (DeviceCollOp op : colls) {
            segment(op.send(), "sendbuff");
            segment(op.recv(), "recvbuff");
        }
        for (DeviceP2pOp op : p2ps) {
            segment(op.buf(), op.send() ? "sendbuff" : "recvbuff");
        }
    }

    /** One task on the stream: the engine runs the collectives in call order, then the sends and receives together. */
    @Override
    public Completion launchGroup(List<DeviceCollOp> colls, List<DeviceP2pOp> p2ps, Stream stream) {
        HostStream s = own(stream);
        HostCompletion done = new HostCompletion(s);
        s.submit(task(colls, p2ps, s, done));
        return done;
    }

    /**
     * A blocking collective called outside a group (checked): on the calling thread if the stream
     * is idle, with nothing allocated for the hand-off, else queued behind the stream's work and
     * waited for.
     *
     * @param op the collective on host memory
     * @param s  its stream
     * @throws NcclException its failure, as an await of its completion would throw it
     */
    public void run(CollOp op, HostStream s) {
        if (s.enterIfIdle(failOnStall)) {
            NcclException failure;
            try {
                failure = launch(op, null, null, s);
            } finally {
                s.exitInline();
            }
            if (failure != null) {
                throw HostCompletion.rethrow(failure);
            }
            return;
        }
        HostCompletion done = new HostCompletion(s);
        s.submit(engineTask(List.of(op), List.of(), s, done));
        done.await();
    }

    private Runnable task(List<DeviceCollOp> colls, List<DeviceP2pOp> p2ps, HostStream s, HostCompletion done) {
        List<CollOp> hostColls = new ArrayList<>(colls.size());
        for (DeviceCollOp op : colls) {
            hostColls.add(engine.choose(new CollOp(CollOp.Func.of(op.kind()), segment(op.send(), "sendbuff"),
                    segment(op.recv(), "recvbuff"), op.count(), op.type(), op.op(), op.root())));
        }
        List<P2pOp> hostP2ps = new ArrayList<>(p2ps.size());
        for (DeviceP2pOp op : p2ps) {
            hostP2ps.add(new P2pOp(op.send(), segment(op.buf(), op.send() ? "sendbuff" : "recvbuff"), op.bytes(),
                    op.peer()));
        }
        return engineTask(hostColls, hostP2ps, s, done);
    }

    /** The launch as a stream task: the engine runs it; a failure fails the completion (and, unless an argument, the communicator). */
    private Runnable engineTask(List<CollOp> hostColls, List<P2pOp> hostP2ps, HostStream s, HostCompletion done) {
        return new HostStream.Launch() {
            @Override
            public void run() {
                NcclException failure = launch(null, hostColls, hostP2ps, s);
                if (failure == null) {
                    done.complete();
                } else {
                    done.fail(failure);
                }
            }

            /** Stuck past the op deadline in a wait with a longer one (a lazy connect's): the communicator fails. */
            @Override
            public void stalled(NcclException e) {
                comm.fail("rank " + comm.rank() + " launch on " + s, e);
            }
        };
    }

    /**
     * Runs a launch on the engine: one collective ({@code one}), or a group's collectives and
     * point-to-point operations.
     *
     * @return its failure, already recorded (see {@link #failed}), or {@code null}
     */
    private NcclException launch(CollOp one, List<CollOp> hostColls, List<P2pOp> hostP2ps, HostStream s) {
        try {
            // Launches queued before a failure end at once, as NCCL's kernels do on the abort flag,
            // instead of each connecting lazily (creating SHM segments) before its first wait fails.
            if (abort.isSet()) { // the message only then: this is every call's path
                abort.check("rank " + comm.rank() + " launch on " + s);
            }
            if (one != null) {
                engine.launch(one);
            } else {
                engine.launch(hostColls, hostP2ps);
            }
            return null;
        } catch (NcclException e) {
            return failed(s, e);
        } catch (IllegalStateException e) {
            // A peer in this process that was aborted or closed has freed the memory it owns.
            String freed = engine.connectionFreed();
            return failed(s, freed != null
                    ? NcclException.of(Result.REMOTE_ERROR, "the peer of " + freed + " was aborted or closed: "
                            + "its memory is gone", "abort this communicator, or shrink it to the ranks that are left", e)
                    : NcclException.of(Result.INTERNAL_ERROR, "launch failed: " + e, null, e));
        } catch (RuntimeException e) {
            return failed(s, NcclException.of(Result.INTERNAL_ERROR, "launch failed: " + e, null, e));
        } catch (Error e) {
            // The communicator is failed and its waiters released; the Error itself propagates.
            failed(s, NcclException.of(Result.INTERNAL_ERROR, "launch failed: " + e, null, e));
            throw e;
        }
    }

    /**
     * A failed launch: an argument the launch itself refused leaves the communicator usable;
     * anything else (a peer, the network, a timeout, a bug) fails it, which aborts its waits.
     *
     * @return the failure, recorded on the stream for {@code synchronize}
     */
    private NcclException failed(HostStream stream, NcclException e) {
        if (e.result() != Result.INVALID_ARGUMENT) {
            comm.fail("rank " + comm.rank() + " launch on " + stream, e);
        } else {
            Log.warn("rank %d: %s", comm.rank(), e.getMessage());
        }
        stream.recordError(e);
        return e;
    }

    /** Any host stream: a host stream is an ordered executor, usable by every host communicator as NCCL's streams are. */
    private static HostStream own(Stream stream) {
        if (!(stream instanceof HostStream s)) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "stream " + stream + " does not belong to the host backend",
                    "create streams with comm.createStream()");
        }
        return s;
    }

    /** The host memory of a buffer ({@code null} stays null: a buffer the collective does not use on this rank). */
    private MemorySegment segment(DeviceBuffer buf, String name) {
        if (buf == null) {
            return null;
        }
        if (!(buf instanceof HostDeviceBuffer h)) {
            throw NcclException.of(Result.INVALID_ARGUMENT, name + " is memory of " + buf.device() + ", not of this rank's "
                    + device, "pass buffers of the communicator's own device");
        }
        return h.segment();
    }

    /**
     * Stops the streams: their work ends, bounded by the op deadline (or at once after an abort);
     * one stuck past its deadline aborts the communicator and gets the abort bound.
     */
    @Override
    public void close() {
        boolean graceful = !abort.isSet();
        boolean all = true;
        for (HostStream s : streams) {
            boolean done = graceful ? s.stop() : s.stop(ABORT_STOP_MILLIS);
            if (!done && graceful) {
                abort.set("destroy found stream " + s + " stuck");
                done = s.stop(ABORT_STOP_MILLIS);
            }
            all &= done;
        }
        stopped = all;
    }

    /** @return whether {@link #close} saw every stream's thread stop (else memory they may touch is kept) */
    @Override
    public boolean quiescent() {
        return stopped;
    }
}
