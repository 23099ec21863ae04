package org.nccl4j.core.enqueue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.nccl4j.Completion;
import org.nccl4j.DataType;
import org.nccl4j.Device;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.NcclException;
import org.nccl4j.core.device.DeviceCollOp;
import org.nccl4j.core.device.DeviceCollectives;
import org.nccl4j.core.device.DeviceP2pOp;
import org.nccl4j.core.device.HostDeviceBuffer;
import org.nccl4j.RedOp;
import org.nccl4j.Result;
import org.nccl4j.Stream;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.stream.HostStream;
import org.nccl4j.core.op.CollOp;

/**
 * {@code ncclEnqueueCheck} and {@code ncclGroupStart/End}: checks every argument, then collects
 * the operation in the calling thread's group (a call outside a group is a group of one); groupEnd
 * hands each communicator's operations, in call order, to its backend's {@link DeviceCollectives}
 * ({@link DeviceGroup}): a GPU backend's kernels, or the host engine ({@link HostCollectives}).
 * MemorySegment arguments reach the host backend as views ({@link HostDeviceBuffer#of}).
 */
public final class Enqueue {
    private static final ThreadLocal<Group> GROUP = ThreadLocal.withInitial(Group::new);
    /**
     * Threads with a group open: a call when none is (the usual case) skips the thread-local
     * lookup, a fifth of a small blocking call's own time in a profile.
     */
    private static final AtomicInteger GROUPS_OPEN = new AtomicInteger();

    private Enqueue() {
    }

    private static final class Group {
        int depth;
        /** The group's operations in call order, launched by their communicators' backends at groupEnd. */
        final List<DevicePending> deviceOps = new ArrayList<>();
        /** The first refused call of the open group: groupEnd throws it and launches nothing. */
        NcclException error;
    }

    /**
     * Runs one call's checks and enqueue; inside a group a refusal is also kept as the group's
     * error ({@code ncclGroupErrCheck}), so that groupEnd fails the whole group instead of
     * launching the rest of it to peers that would wait for the refused part.
     */
    private static <T> T recorded(java.util.function.Supplier<T> call) {
        try {
            return call.get();
        } catch (NcclException e) {
            Group g = GROUP.get();
            if (g.depth > 0 && g.error == null) {
                g.error = e;
            }
            throw e;
        }
    }

    /** {@code ncclGroupStart}. */
    public static void groupStart() {
        if (GROUP.get().depth++ == 0) {
            GROUPS_OPEN.incrementAndGet();
        }
    }

    private static boolean inGroup() {
        return GROUPS_OPEN.get() > 0 && GROUP.get().depth > 0;
    }

    /**
     * {@code ncclGroupEnd}: launches the outermost group, one launch per communicator; if a call
     * of the group was refused, launches nothing, fails the group's completions and throws that
     * first error.
     */
    public static void groupEnd() {
        Group g = GROUP.get();
        if (g.depth == 0) {
            throw NcclException.of(Result.INVALID_USAGE, "groupEnd without groupStart", "pair every groupEnd with a groupStart");
        }
        if (--g.depth > 0) {
            return;
        }
        GROUPS_OPEN.decrementAndGet();
        List<DevicePending> deviceOps = new ArrayList<>(g.deviceOps);
        NcclException error = g.error;
        g.deviceOps.clear();
        g.error = null;
        if (error != null) {
            deviceOps.forEach(p -> p.completion().fail(error));
            throw error;
        }
        if (!deviceOps.isEmpty()) {
            DeviceGroup.launch(deviceOps);
        }
    }

    /** A MemorySegment argument as the host backend's device buffer (a view; null stays null). */
    private static DeviceBuffer view(Device device, MemorySegment seg) {
        return seg == null ? null : HostDeviceBuffer.of(device, seg);
    }

    private static NcclException bad(String what, String hint) {
        return NcclException.of(Result.INVALID_ARGUMENT, what, hint);
    }

    private static HostStream stream(EnqueueTarget comm, Stream s) {
        if (comm.engine() == null) {
            throw bad("host memory (MemorySegment) passed to a communicator of the " + comm.device().backend()
                    + " backend, whose collectives run on " + comm.device(),
                    "allocate device memory with comm.allocate(bytes) or wrap it with comm.wrap(address, bytes)");
        }
        if (s == null) {
            throw bad("stream is null", "use comm.defaultStream() or comm.createStream()");
        }
        if (!(s instanceof HostStream hs)) {
            throw bad("stream " + s + " does not belong to the host backend", "create streams with comm.createStream()");
        }
        return hs;
    }

    private static long bytes(long count, DataType type, long times, String what) {
        if (count < 0) {
            throw bad(what + " " + count + " is negative", null);
        }
        try {
            return Math.multiplyExact(Math.multiplyExact(count, type.size()), times);
        } catch (ArithmeticException e) {
            throw bad(what + " " + count + " of " + type + " overflows 64-bit byte sizes", null);
        }
    }

    private static void buffer(HostStream s, MemorySegment seg, String name, long needed, boolean written) {
        if (seg == null) {
            throw bad(name + " is null", "pass a MemorySegment (MemorySegment.ofArray for Java arrays)");
        }
        if (!s.reaches(seg)) {
            // It would fail inside the launch, on the stream's or a channel's thread.
            throw bad(name + " is confined to one thread (Arena.ofConfined): the host backend's stream and "
                    + "channel threads read and write it", "allocate it from Arena.ofShared(), Arena.ofAuto() or "
                    + "Arena.global(), or pass a Java array (MemorySegment.ofArray)");
        }
        if (seg.byteSize() < needed) {
            throw bad(name + " holds " + seg.byteSize() + " bytes but the call needs " + needed,
                    "check count, datatype and (AllGather/ReduceScatter) that counts are per rank");
        }
        if (written && seg.isReadOnly()) {
            throw bad(name + " is read-only", "pass a writable segment");
        }
    }

    private static void typeAndOp(DataType type, RedOp op, boolean needsOp) {
        if (type == null) {
            throw bad("invalid data type null", "use one of " + java.util.Arrays.toString(DataType.values()));
        }
        if (needsOp && op == null) {
            throw bad("invalid reduction operation null", "use one of " + java.util.Arrays.toString(RedOp.values()));
        }
    }

    private static void peer(EnqueueTarget comm, int peer) {
        if (peer < 0 || peer >= comm.count()) {
            throw bad("invalid peer " + peer + " (nranks " + comm.count() + ")", "peer must be between 0 and nranks-1");
        }
    }

    private static void root(EnqueueTarget comm, int root) {
        if (root < 0 || root >= comm.count()) {
            throw bad("invalid root " + root + " (nranks " + comm.count() + ")", "root must be between 0 and nranks-1");
        }
    }

    /**
     * Checks and enqueues a collective.
     *
     * @param comm   the communicator
     * @param op     the collective
     * @param stream the stream
     * @return its completion
     */
    public static Completion collective(EnqueueTarget comm, CollOp op, Stream stream) {
        return recorded(() -> enqueueDevice(checkedCollective(comm, op, stream)));
    }

    /**
     * Checks a collective, runs it and returns once it is done: the blocking call of
     * {@code Communicator} (a host stream that is idle runs it on the calling thread).
     *
     * @param comm   the communicator
     * @param op     the collective
     * @param stream the stream it is ordered on
     */
    public static void collectiveAndWait(EnqueueTarget comm, CollOp op, Stream stream) {
        if (inGroup()) {
            // Inside a group it waits for groupEnd, as the asynchronous call's await does.
            enqueueDevice(recorded(() -> checkedCollective(comm, op, stream))).await();
            return;
        }
        // Nothing to group with: straight to the engine, without the group's device operation
        // (the small call's path, measured in objects and indirections per call).
        HostStream s = checkedHostCollective(comm, op, stream);
        ((HostCollectives) comm.onDevice()).run(op, s);
    }

    /** @return the checked collective, as the device operation of a host backend's launch */
    private static DevicePending checkedCollective(EnqueueTarget comm, CollOp op, Stream stream) {
        HostStream s = checkedHostCollective(comm, op, stream);
        Device d = comm.device();
        DeviceCollOp dop = new DeviceCollOp(op.func().kind(), view(d, op.in()), view(d, op.out()), op.count(), op.type(),
                op.op(), op.root());
        return new DevicePending(comm, s, dop, null,
                new GroupCompletion(dop.kind().ncclName(), comm.userRank()));
    }

    /** Checks a collective on host memory: @return its stream */
    private static HostStream checkedHostCollective(EnqueueTarget comm, CollOp op, Stream stream) {
        HostStream s = stream(comm, stream);
        int n = comm.count();
        boolean reduces = op.func() != CollOp.Func.BROADCAST && op.func() != CollOp.Func.ALL_GATHER;
        typeAndOp(op.type(), op.op(), reduces);
        switch (op.func()) {
            case ALL_REDUCE -> {
                long b = bytes(op.count(), op.type(), 1, "count");
                buffer(s, op.in(), "sendbuff", b, false);
                buffer(s, op.out(), "recvbuff", b, true);
            }
            case BROADCAST -> {
                root(comm, op.root());
                long b = bytes(op.count(), op.type(), 1, "count");
                if (comm.userRank() == op.root()) {
                    buffer(s, op.in(), "sendbuff", b, false);
                }
                buffer(s, op.out(), "recvbuff", b, true);
            }
            case REDUCE -> {
                root(comm, op.root());
                long b = bytes(op.count(), op.type(), 1, "count");
                buffer(s, op.in(), "sendbuff", b, false);
                if (comm.userRank() == op.root()) {
                    buffer(s, op.out(), "recvbuff", b, true);
                }
            }
            case ALL_GATHER -> {
                buffer(s, op.in(), "sendbuff", bytes(op.count(), op.type(), 1, "sendcount"), false);
                buffer(s, op.out(), "recvbuff", bytes(op.count(), op.type(), n, "sendcount"), true);
            }
            case REDUCE_SCATTER -> {
                buffer(s, op.in(), "sendbuff", bytes(op.count(), op.type(), n, "recvcount"), false);
                buffer(s, op.out(), "recvbuff", bytes(op.count(), op.type(), 1, "recvcount"), true);
            }
        }
        comm.checkUsable();
        if (Log.get().enabled(org.nccl4j.core.debug.Level.INFO, Subsys.COLL)) {
            CollOp chosen = comm.engine().choose(op);
            Log.info(Subsys.COLL, "%s: count %d datatype %s op %s root %d comm rank %d [nranks=%d] stream %s algo %s proto %s",
                    op.func(), op.count(), op.type(), op.op(), op.root(), comm.userRank(), n, s,
                    chosen.algorithm().ncclName(), chosen.protocol().ncclName());
        }
        return s;
    }

    /**
     * Checks a collective on device memory and hands it to the device backend, which enqueues
     * its kernel on the stream at once.
     *
     * @param comm   the communicator
     * @param op     the collective
     * @param stream the stream (the backend checks it is one of its own)
     * @return its completion
     */
    public static Completion deviceCollective(EnqueueTarget comm, DeviceCollOp op, Stream stream) {
        if (comm.engine() != null) {
            return recorded(() -> enqueueDevice(checkedCollective(comm, new CollOp(CollOp.Func.of(op.kind()),
                    hostMemory(op.send(), "sendbuff", comm.device()), hostMemory(op.recv(), "recvbuff", comm.device()),
                    op.count(), op.type(), op.op(), op.root()), stream)));
        }
        return recorded(() -> checkedDeviceCollective(comm, op, stream));
    }

    private static Completion checkedDeviceCollective(EnqueueTarget comm, DeviceCollOp op, Stream stream) {
        DeviceCollectives dev = onDevice(comm, stream);
        int n = comm.count();
        boolean reduces = op.kind() != DeviceCollOp.Kind.BROADCAST && op.kind() != DeviceCollOp.Kind.ALL_GATHER;
        typeAndOp(op.type(), op.op(), reduces);
        Device device = comm.device();
        boolean root = op.root() == comm.userRank();
        switch (op.kind()) {
            case ALL_REDUCE -> {
                long b = bytes(op.count(), op.type(), 1, "count");
                deviceBuffer(op.send(), "sendbuff", b, device);
                deviceBuffer(op.recv(), "recvbuff", b, device);
            }
            case BROADCAST, REDUCE -> {
                root(comm, op.root());
                long b = bytes(op.count(), op.type(), 1, "count");
                if (root || op.kind() == DeviceCollOp.Kind.REDUCE) {
                    deviceBuffer(op.send(), "sendbuff", b, device);
                }
                if (root || op.kind() == DeviceCollOp.Kind.BROADCAST) {
                    deviceBuffer(op.recv(), "recvbuff", b, device);
                }
            }
            case ALL_GATHER -> {
                deviceBuffer(op.send(), "sendbuff", bytes(op.count(), op.type(), 1, "sendcount"), device);
                deviceBuffer(op.recv(), "recvbuff", bytes(op.count(), op.type(), n, "sendcount"), device);
            }
            case REDUCE_SCATTER -> {
                deviceBuffer(op.send(), "sendbuff", bytes(op.count(), op.type(), n, "recvcount"), device);
                deviceBuffer(op.recv(), "recvbuff", bytes(op.count(), op.type(), 1, "recvcount"), device);
            }
        }
        comm.checkUsable();
        if (Log.get().enabled(org.nccl4j.core.debug.Level.INFO, Subsys.COLL)) {
            Log.info(Subsys.COLL, "%s: count %d datatype %s op %s root %d comm rank %d [nranks=%d] stream %s",
                    op.kind().ncclName(), op.count(), op.type(), op.op(), op.root(), comm.userRank(), n, stream);
        }
        if (inGroup()) {
            return enqueueDevice(new DevicePending(comm, stream, op, null,
                    new GroupCompletion(op.kind().ncclName(), comm.userRank())));
        }
        return dev.launch(op, stream);
    }

    private static DeviceCollectives onDevice(EnqueueTarget comm, Stream stream) {
        DeviceCollectives dev = comm.onDevice();
        if (stream == null) {
            throw bad("stream is null", "use comm.defaultStream() or comm.createStream()");
        }
        return dev;
    }

    /** Collects a device operation in the open group, or makes it a group of one and launches it. */
    private static Completion enqueueDevice(DevicePending p) {
        Group g = GROUP.get();
        if (g.depth > 0) {
            g.deviceOps.add(p);
            return p.completion();
        }
        groupStart();
        g.deviceOps.add(p);
        groupEnd();
        return p.completion();
    }

    /**
     * Checks a send or receive of device memory and collects it in the group (outside a group,
     * a group of one), launched at groupEnd with the group's other operations of the communicator.
     *
     * @param comm   the communicator
     * @param send   whether it sends
     * @param buf    the buffer
     * @param count  elements
     * @param type   element type
     * @param peer   the other rank
     * @param stream the stream
     * @return its completion
     */
    public static Completion deviceP2p(EnqueueTarget comm, boolean send, DeviceBuffer buf, long count, DataType type,
                                       int peer, Stream stream) {
        if (comm.engine() != null) {
            return recorded(() -> checkedP2p(comm, send, hostMemory(buf, send ? "sendbuff" : "recvbuff", comm.device()),
                    count, type, peer, stream));
        }
        return recorded(() -> checkedDeviceP2p(comm, send, buf, count, type, peer, stream));
    }

    private static Completion checkedDeviceP2p(EnqueueTarget comm, boolean send, DeviceBuffer buf, long count,
                                               DataType type, int peer, Stream stream) {
        onDevice(comm, stream);
        typeAndOp(type, null, false);
        peer(comm, peer);
        long b = bytes(count, type, 1, "count");
        deviceBuffer(buf, send ? "sendbuff" : "recvbuff", b, comm.device());
        comm.checkUsable();
        String what = (send ? "Send" : "Recv") + " of rank " + comm.userRank() + (send ? " to " : " from ") + peer;
        if (Log.get().enabled(org.nccl4j.core.debug.Level.INFO, Subsys.COLL)) {
            Log.info(Subsys.COLL, "%s: count %d datatype %s comm rank %d [nranks=%d] peer %d stream %s",
                    send ? "Send" : "Recv", count, type, comm.userRank(), comm.count(), peer, stream);
        }
        return enqueueDevice(new DevicePending(comm, stream, null, new DeviceP2pOp(send, buf, b, peer),
                new GroupCompletion(what)));
    }

    /**
     * Checks an AllToAll of device memory whole, then collects it as a group of one send and one
     * receive per peer (the MemorySegment form's shape).
     *
     * @param comm     the communicator
     * @param sendbuff {@code nranks * count} elements
     * @param recvbuff {@code nranks * count} elements
     * @param count    elements per peer
     * @param type     element type
     * @param stream   the stream
     * @return the completion of the last receive
     */
    public static Completion deviceAllToAll(EnqueueTarget comm, DeviceBuffer sendbuff, DeviceBuffer recvbuff,
                                            long count, DataType type, Stream stream) {
        if (comm.engine() != null) {
            return recorded(() -> checkedAllToAll(comm, hostMemory(sendbuff, "sendbuff", comm.device()),
                    hostMemory(recvbuff, "recvbuff", comm.device()), count, type, stream));
        }
        return recorded(() -> checkedDeviceAllToAll(comm, sendbuff, recvbuff, count, type, stream));
    }

    private static Completion checkedDeviceAllToAll(EnqueueTarget comm, DeviceBuffer sendbuff, DeviceBuffer recvbuff,
                                                    long count, DataType type, Stream stream) {
        onDevice(comm, stream);
        typeAndOp(type, null, false);
        int n = comm.count();
        long total = bytes(count, type, n, "count");
        deviceBuffer(sendbuff, "sendbuff", total, comm.device());
        deviceBuffer(recvbuff, "recvbuff", total, comm.device());
        if (total > 0 && sendbuff.address() < recvbuff.address() + total && recvbuff.address() < sendbuff.address() + total) {
            throw bad("sendbuff and recvbuff of AllToAll overlap", "pass separate buffers");
        }
        comm.checkUsable();
        long block = total / n;
        Completion last = null;
        groupStart();
        try {
            for (int p = 0; p < n; p++) {
                deviceP2p(comm, true, sendbuff.slice(p * block, block), count, type, p, stream);
                last = deviceP2p(comm, false, recvbuff.slice(p * block, block), count, type, p, stream);
            }
        } finally {
            groupEnd();
        }
        return last;
    }

    /**
     * A device buffer on a host communicator: its host memory, which the host engine then checks
     * and moves as a MemorySegment.
     */
    private static MemorySegment hostMemory(DeviceBuffer buf, String name, Device device) {
        if (buf == null) {
            throw bad(name + " is null", "allocate with comm.allocate or wrap host memory with comm.wrap");
        }
        if (!(buf instanceof HostDeviceBuffer h)) {
            throw notMine(buf, name, device);
        }
        checkDevice(buf, name, device);
        return h.segment();
    }

    private static void checkDevice(DeviceBuffer buf, String name, Device device) {
        if (!buf.device().backend().equals(device.backend()) || buf.device().index() != device.index()) {
            throw notMine(buf, name, device);
        }
    }

    private static NcclException notMine(DeviceBuffer buf, String name, Device device) {
        return bad(name + " is memory of " + buf.device() + ", not of this rank's " + device,
                "pass buffers of the communicator's own device");
    }

    private static void deviceBuffer(DeviceBuffer buf, String name, long needed, Device device) {
        if (buf == null) {
            throw bad(name + " is null", "allocate device memory with comm.allocate or wrap it with comm.wrap");
        }
        checkDevice(buf, name, device);
        if (buf.byteSize() < needed) {
            throw bad(name + " holds " + buf.byteSize() + " bytes but the call needs " + needed,
                    "check count, datatype and (AllGather/ReduceScatter) that counts are per rank");
        }
    }

    /**
     * Checks and enqueues a send or receive.
     *
     * @param comm   the communicator
     * @param send   whether it sends
     * @param buf    the buffer
     * @param count  elements
     * @param type   element type
     * @param peer   the other rank
     * @param stream the stream
     * @return its completion
     */
    public static Completion p2p(EnqueueTarget comm, boolean send, MemorySegment buf, long count, DataType type,
                                 int peer, Stream stream) {
        return recorded(() -> checkedP2p(comm, send, buf, count, type, peer, stream));
    }

    private static Completion checkedP2p(EnqueueTarget comm, boolean send, MemorySegment buf, long count,
                                         DataType type, int peer, Stream stream) {
        HostStream s = stream(comm, stream);
        typeAndOp(type, null, false);
        peer(comm, peer);
        long b = bytes(count, type, 1, "count");
        buffer(s, buf, send ? "sendbuff" : "recvbuff", b, !send);
        comm.checkUsable();
        String what = (send ? "Send" : "Recv") + " of rank " + comm.userRank() + (send ? " to " : " from ") + peer;
        return enqueueDevice(new DevicePending(comm, s, null, new DeviceP2pOp(send, view(comm.device(), buf), b, peer),
                new GroupCompletion(what)));
    }

    /**
     * Checks an AllToAll whole, then enqueues it as a group of one send and one receive per
     * peer, so a bad argument fails before any block is sent or received.
     *
     * @param comm     the communicator
     * @param sendbuff {@code nranks * count} elements
     * @param recvbuff {@code nranks * count} elements
     * @param count    elements per peer
     * @param type     element type
     * @param stream   the stream
     * @return the completion of the last receive
     */
    public static Completion allToAll(EnqueueTarget comm, MemorySegment sendbuff, MemorySegment recvbuff, long count,
                                      DataType type, Stream stream) {
        return recorded(() -> checkedAllToAll(comm, sendbuff, recvbuff, count, type, stream));
    }

    private static Completion checkedAllToAll(EnqueueTarget comm, MemorySegment sendbuff, MemorySegment recvbuff,
                                              long count, DataType type, Stream stream) {
        HostStream s = stream(comm, stream);
        typeAndOp(type, null, false);
        int n = comm.count();
        long total = bytes(count, type, n, "count");
        buffer(s, sendbuff, "sendbuff", total, false);
        buffer(s, recvbuff, "recvbuff", total, true);
        comm.checkUsable();
        long block = total / n;
        Completion last = null;
        groupStart();
        try {
            for (int p = 0; p < n; p++) {
                p2p(comm, true, sendbuff.asSlice(p * block, block), count, type, p, stream);
                last = p2p(comm, false, recvbuff.asSlice(p * block, block), count, type, p, stream);
            }
        } finally {
            groupEnd();
        }
        return last;
    }
}
