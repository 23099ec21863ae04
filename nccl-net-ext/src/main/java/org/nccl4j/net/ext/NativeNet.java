package org.nccl4j.net.ext;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.nccl4j.net.spi.Comm;
import org.nccl4j.net.spi.ListenComm;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetLogger;
import org.nccl4j.net.spi.NetProperties;
import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.SendComm;

/**
 * A native plugin as a {@link Net}: each SPI call becomes a call through the plugin's
 * {@code ncclNet_vN_t} function pointers with that version's signature (v4 to v10).
 *
 * <p>What the adapter does for the plugin's sake: every struct and out-pointer is zeroed before
 * a call; a connect handle lives in stable native memory across the retries of one connection
 * (some plugins keep state in it) and as long as the send comm; v10's connect gets the config
 * {@code {trafficClass = -1}}; a post that succeeds with a NULL request is reported as
 * "retry" ({@code null}); requests are tested in posting order; sizes are checked against the
 * version's limits before a call and against the posted size after {@code test}; devices,
 * comms, registrations and requests are checked in Java so a caller's mistake never reaches
 * the plugin as a bad pointer.
 */
@SuppressWarnings("restricted") // native access is this module's purpose: --enable-native-access=org.nccl4j.net.ext
final class NativeNet implements Net {
    /** The tag of every message: nccl4j matches messages per connection in order. */
    private static final int TAG = 0;
    private static final long NET = NetLogger.INIT | NetLogger.NET;

    private final boolean fixedSpec;
    private final String spec;
    private final String fallbackName;
    private final Map<HandleKey, PendingConnect> connecting = new ConcurrentHashMap<>();

    private volatile LoadedPlugin plugin;
    private PluginTable fn;
    private NetAbi abi;

    /**
     * @param fixedSpec    whether {@code spec} is given; else {@code NCCL_NET_PLUGIN} from the context
     *                     decides, and {@code spec} (what the provider read from the environment) is
     *                     used where the context has no value
     * @param spec         the plugin to load, as {@code NCCL_NET_PLUGIN} spells it, or {@code null}
     * @param fallbackName the name before a plugin is loaded
     */
    NativeNet(boolean fixedSpec, String spec, String fallbackName) {
        this.fixedSpec = fixedSpec;
        this.spec = spec;
        this.fallbackName = fallbackName;
    }

    @Override
    public String name() {
        LoadedPlugin p = plugin;
        return p == null ? fallbackName : p.name;
    }

    @Override
    public synchronized void init(NetContext context) throws NetException {
        NetLogger log = context == null || context.logger() == null ? (l, s, m) -> { } : context.logger();
        String fromContext = fixedSpec || context == null ? null : context.param("NCCL_NET_PLUGIN");
        String s = fixedSpec || fromContext == null ? spec : fromContext;
        PluginLoad load = PluginRegistry.load(s);
        for (String line : load.logLines()) {
            log.log(NetLogger.INFO, NET, line);
        }
        if (load.plugin() == null) {
            throw new NetException(NetException.Kind.SYSTEM, load.failure());
        }
        NativeLogSink.route(log);
        load.plugin().init();
        abi = load.plugin().abi;
        fn = load.plugin().table;
        plugin = load.plugin();
    }

    /** @return the {@code ncclNet} version in use, 0 before a successful init */
    int version() {
        LoadedPlugin p = plugin;
        return p == null ? 0 : p.abi.version;
    }

    private LoadedPlugin plugin() throws NetException {
        LoadedPlugin p = plugin;
        if (p == null) {
            throw new NetException(NetException.Kind.INVALID_USAGE, name() + ": init has not succeeded");
        }
        return p;
    }

    @Override
    public int devices() throws NetException {
        return plugin().deviceCount();
    }

    @Override
    public NetProperties getProperties(int dev) throws NetException {
        return plugin().device(dev).properties();
    }

    @Override
    public int maxRequests() {
        return Net.MAX_REQUESTS;
    }

    // ---- connection set-up ----

    @Override
    public ListenComm listen(int dev, byte[] handle) throws NetException {
        LoadedPlugin p = plugin();
        p.device(dev);
        checkHandle(handle);
        int rc;
        MemorySegment comm;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment h = arena.allocate(abi.handleSize, 8);
            MemorySegment out = arena.allocate(ADDRESS);
            try {
                rc = (int) fn.listen.invokeExact(dev, h, out);
            } catch (Throwable t) {
                throw uncallable("listen", t);
            }
            if (rc != 0) {
                throw NcclResult.failure(rc, p.name + " listen(dev " + dev + ")");
            }
            comm = out.get(ADDRESS, 0);
            if (comm.equals(MemorySegment.NULL)) {
                throw new NetException(NetException.Kind.INTERNAL, p.name + " listen succeeded without a listen comm");
            }
            Arrays.fill(handle, (byte) 0);
            MemorySegment.copy(h, JAVA_BYTE_LAYOUT, 0, handle, 0, abi.handleSize);
        }
        return new NativeListenComm(p, dev, comm);
    }

    private static final java.lang.foreign.ValueLayout.OfByte JAVA_BYTE_LAYOUT = java.lang.foreign.ValueLayout.JAVA_BYTE;

    private void checkHandle(byte[] handle) throws NetException {
        if (handle == null || handle.length < abi.handleSize) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, name() + ": a handle of "
                    + (handle == null ? "null" : handle.length + " bytes") + "; " + abi.symbol() + " handles are "
                    + abi.handleSize + " bytes");
        }
    }

    @Override
    public SendComm connect(int dev, byte[] handle) throws NetException {
        LoadedPlugin p = plugin();
        p.device(dev);
        checkHandle(handle);
        HandleKey key = new HandleKey(dev, Arrays.copyOf(handle, abi.handleSize));
        PendingConnect pc = connecting.computeIfAbsent(key, k -> new PendingConnect(abi, k.handle()));
        synchronized (pc) {
            if (pc.finished) {
                throw new NetException(NetException.Kind.INVALID_USAGE, p.name + ": connect raced with itself on one handle");
            }
            pc.commOut.fill((byte) 0);
            pc.devCommOut.fill((byte) 0);
            int rc;
            try {
                rc = switch (abi.version) {
                    case 10 -> (int) fn.connect.invokeExact(dev, pc.config, pc.handle, pc.commOut, pc.devCommOut);
                    case 9, 8, 7 -> (int) fn.connect.invokeExact(dev, pc.handle, pc.commOut, pc.devCommOut);
                    default -> (int) fn.connect.invokeExact(dev, pc.handle, pc.commOut);
                };
            } catch (Throwable t) {
                finish(key, pc, true);
                throw uncallable("connect", t);
            }
            if (rc != 0) {
                finish(key, pc, true);
                throw NcclResult.failure(rc, p.name + " connect(dev " + dev + ")");
            }
            MemorySegment comm = pc.commOut.get(ADDRESS, 0);
            if (comm.equals(MemorySegment.NULL)) {
                return null; // still connecting: the next call passes the same handle memory
            }
            finish(key, pc, false);
            return new NativeSendComm(p, dev, comm, pc.arena);
        }
    }

    private void finish(HandleKey key, PendingConnect pc, boolean free) {
        pc.finished = true;
        connecting.remove(key, pc);
        if (free) {
            pc.arena.close();
        }
    }

    @Override
    public RecvComm accept(ListenComm listenComm) throws NetException {
        NativeListenComm lc = comm(listenComm, NativeListenComm.class);
        synchronized (lc) {
            lc.checkOpen("accept");
            lc.clearScratch();
            int rc;
            try {
                rc = abi.version >= 7 ? (int) fn.accept.invokeExact(lc.ptr, lc.requestOut, lc.devCommOut)
                        : (int) fn.accept.invokeExact(lc.ptr, lc.requestOut);
            } catch (Throwable t) {
                throw uncallable("accept", t);
            }
            if (rc != 0) {
                throw NcclResult.failure(rc, lc.plugin.name + " accept");
            }
            MemorySegment comm = lc.requestOut.get(ADDRESS, 0);
            return comm.equals(MemorySegment.NULL) ? null : new NativeRecvComm(lc.plugin, lc.dev, comm);
        }
    }

    // ---- memory registration ----

    @Override
    public MemoryHandle regMr(Comm comm, MemorySegment data, int type) throws NetException {
        NativeComm c = dataComm(comm);
        PluginDevice d = c.plugin.device(c.dev);
        checkNative(data, "regMr");
        if ((type & d.properties().ptrSupport()) == 0 || Integer.bitCount(type) != 1) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, c.plugin.name + ": memory type 0x" + Integer.toHexString(type)
                    + " is not supported by device " + c.dev + " (" + d.properties().name() + ", ptrSupport 0x"
                    + Integer.toHexString(d.properties().ptrSupport()) + ")");
        }
        long size = data.byteSize();
        if (abi.version < 8 && size > Integer.MAX_VALUE) {
            throw tooLarge(c, "regMr", size, Integer.MAX_VALUE,
                    abi.symbol() + "'s regMr takes an int size; register smaller buffers, or use a plugin that exports ncclNetPlugin_v8 or later");
        }
        synchronized (c) {
            c.checkOpen("regMr");
            int rc;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(ADDRESS); // NULL if the plugin does not write it
                try {
                    rc = abi.version >= 8 ? (int) fn.regMr.invokeExact(c.ptr, data, size, type, out)
                            : (int) fn.regMr.invokeExact(c.ptr, data, (int) size, type, out);
                } catch (Throwable t) {
                    throw uncallable("regMr", t);
                }
                if (rc != 0) {
                    throw NcclResult.failure(rc, c.plugin.name + " regMr(" + size + " bytes, type 0x" + Integer.toHexString(type) + ")");
                }
                return new NativeMemoryHandle(c, out.get(ADDRESS, 0), data.address(), size);
            }
        }
    }

    @Override
    public void deregMr(Comm comm, MemoryHandle handle) throws NetException {
        NativeComm c = dataComm(comm);
        NativeMemoryHandle h = handle(c, handle);
        synchronized (c) {
            c.checkOpen("deregMr");
            for (int i = 0; i < c.inFlight(); i++) {
                if (c.at(i).handle == h) {
                    // The plugin (its NIC) may still read or write through it.
                    throw new NetException(NetException.Kind.INVALID_USAGE, c.plugin.name + " deregMr: " + c.at(i)
                            + " uses this registration and is still in flight; test it to completion first");
                }
            }
            h.released = true;
            int rc;
            try {
                rc = (int) fn.deregMr.invokeExact(c.ptr, h.ptr);
            } catch (Throwable t) {
                throw uncallable("deregMr", t);
            }
            if (rc != 0) {
                throw NcclResult.failure(rc, c.plugin.name + " deregMr");
            }
        }
    }

    // ---- data path ----

    @Override
    public Request isend(SendComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
        NativeSendComm c = comm(comm, NativeSendComm.class);
        NativeMemoryHandle h = handle(c, handle);
        long size = checkData(c, h, data, "isend");
        synchronized (c) {
            checkPost(c, "isend");
            c.clearScratch();
            int rc;
            try {
                rc = switch (abi.version) {
                    case 4 -> (int) fn.isend.invokeExact(c.ptr, data, (int) size, h.ptr, c.requestOut);
                    case 5, 6, 7, 8 -> (int) fn.isend.invokeExact(c.ptr, data, (int) size, TAG, h.ptr, c.requestOut);
                    case 9 -> (int) fn.isend.invokeExact(c.ptr, data, size, TAG, h.ptr, c.requestOut);
                    default -> (int) fn.isend.invokeExact(c.ptr, data, size, TAG, h.ptr, MemorySegment.NULL, c.requestOut);
                };
            } catch (Throwable t) {
                throw uncallable("isend", t);
            }
            return posted(c, h, rc, size, "isend");
        }
    }

    @Override
    public Request irecv(RecvComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
        NativeRecvComm c = comm(comm, NativeRecvComm.class);
        NativeMemoryHandle h = handle(c, handle);
        long size = checkData(c, h, data, "irecv");
        synchronized (c) {
            checkPost(c, "irecv");
            c.clearScratch();
            int rc;
            try {
                if (abi.version == 4) {
                    rc = (int) fn.irecv.invokeExact(c.ptr, data, (int) size, h.ptr, c.requestOut);
                } else {
                    c.dataArray.set(ADDRESS, 0, data);
                    if (abi.sizeTSizes()) {
                        c.sizesArray.set(JAVA_LONG, 0, size);
                    } else {
                        c.sizesArray.set(JAVA_INT, 0, (int) size);
                    }
                    c.tagsArray.set(JAVA_INT, 0, TAG);
                    c.mhandlesArray.set(ADDRESS, 0, h.ptr);
                    rc = abi.version >= 10
                            ? (int) fn.irecv.invokeExact(c.ptr, 1, c.dataArray, c.sizesArray, c.tagsArray, c.mhandlesArray,
                                    c.phandlesArray, c.requestOut)
                            : (int) fn.irecv.invokeExact(c.ptr, 1, c.dataArray, c.sizesArray, c.tagsArray, c.mhandlesArray,
                                    c.requestOut);
                }
            } catch (Throwable t) {
                throw uncallable("irecv", t);
            }
            return posted(c, h, rc, size, "irecv");
        }
    }

    @Override
    public Request iflush(RecvComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
        NativeRecvComm c = comm(comm, NativeRecvComm.class);
        NativeMemoryHandle h = handle(c, handle);
        long size = checkData(c, h, data, "iflush");
        if (fn.iflush == null) {
            return null;
        }
        synchronized (c) {
            checkPost(c, "iflush");
            c.clearScratch();
            int rc;
            try {
                if (abi.version == 4) {
                    rc = (int) fn.iflush.invokeExact(c.ptr, data, (int) size, h.ptr, c.requestOut);
                } else {
                    c.dataArray.set(ADDRESS, 0, data);
                    c.sizesArray.set(JAVA_INT, 0, (int) size);
                    c.mhandlesArray.set(ADDRESS, 0, h.ptr);
                    rc = (int) fn.iflush.invokeExact(c.ptr, 1, c.dataArray, c.sizesArray, c.mhandlesArray, c.requestOut);
                }
            } catch (Throwable t) {
                throw uncallable("iflush", t);
            }
            return posted(c, h, rc, size, "iflush"); // NULL request: no flush needed
        }
    }

    private static void checkPost(NativeComm c, String call) throws NetException {
        c.checkOpen(call);
        if (c.inFlight() >= Net.MAX_REQUESTS) {
            throw new NetException(NetException.Kind.INVALID_USAGE, c.plugin.name + " " + call + ": " + Net.MAX_REQUESTS
                    + " requests already in flight on this " + c.kind() + " (NCCL_NET_MAX_REQUESTS); test them first");
        }
    }

    private static Request posted(NativeComm c, NativeMemoryHandle h, int rc, long size, String op) throws NetException {
        if (rc != 0) {
            throw NcclResult.failure(rc, c.plugin.name + " " + op + "(" + size + " bytes)");
        }
        MemorySegment req = c.postedRequest();
        if (req.equals(MemorySegment.NULL)) {
            return null; // not posted: the caller retries, as the SPI says
        }
        NativeRequest r = new NativeRequest(c, h, req, size, op);
        c.add(r);
        return r;
    }

    @Override
    public long test(Request request) throws NetException {
        if (!(request instanceof NativeRequest r)) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, name() + ": not a request of this net: " + request);
        }
        NativeComm c = r.comm;
        synchronized (c) {
            if (r.released) {
                throw new NetException(NetException.Kind.INVALID_USAGE, r + " was already reported complete");
            }
            if (c.closed) {
                r.released = true;
                throw new NetException(NetException.Kind.REMOTE, r + " ended: its " + c.kind() + " was closed");
            }
            // Oldest first: some plugins require it, and on one comm requests complete in order.
            for (int i = 0, n = c.inFlight(); i < n; i++) {
                NativeRequest q = c.at(i);
                if (!q.done && q.failure == null) {
                    poll(c, q);
                    if (!q.done && q.failure == null) {
                        return -1;
                    }
                }
                if (q == r) {
                    break;
                }
            }
            c.remove(r);
            r.released = true;
            if (r.failure != null) {
                throw r.failure;
            }
            return r.size;
        }
    }

    private void poll(NativeComm c, NativeRequest q) {
        c.doneOut.set(JAVA_INT, 0, 0);
        c.sizeOut.set(JAVA_INT, 0, -1); // some plugins never write the size
        int rc;
        try {
            rc = (int) fn.test.invokeExact(q.ptr, c.doneOut, c.sizeOut);
        } catch (Throwable t) {
            q.failure = new NetException(NetException.Kind.INTERNAL, q + ": test could not be called: " + t);
            return;
        }
        if (rc != 0) {
            q.failure = NcclResult.failure(rc, "test of " + q);
            return;
        }
        if (c.doneOut.get(JAVA_INT, 0) == 0) {
            return;
        }
        long size = c.sizeOut.get(JAVA_INT, 0);
        if (size == -1) {
            size = q.posted;
        }
        if (size < 0 || size > q.posted) {
            q.failure = new NetException(NetException.Kind.INTERNAL, "test of " + q + " reported " + size
                    + " bytes, outside 0.." + q.posted + ": the plugin is broken or the peer sent more than was posted");
            return;
        }
        q.size = size;
        q.done = true;
    }

    // ---- closing ----

    @Override
    public void closeSend(SendComm comm) throws NetException {
        close(comm(comm, NativeSendComm.class), "closeSend");
    }

    @Override
    public void closeRecv(RecvComm comm) throws NetException {
        close(comm(comm, NativeRecvComm.class), "closeRecv");
    }

    @Override
    public void closeListen(ListenComm comm) throws NetException {
        close(comm(comm, NativeListenComm.class), "closeListen");
    }

    private void close(NativeComm c, String call) throws NetException {
        synchronized (c) {
            c.checkOpen(call);
            int rc;
            try {
                rc = switch (c) {
                    case NativeSendComm s -> (int) fn.closeSend.invokeExact(s.ptr);
                    case NativeRecvComm r -> (int) fn.closeRecv.invokeExact(r.ptr);
                    case NativeListenComm l -> (int) fn.closeListen.invokeExact(l.ptr);
                };
            } catch (Throwable t) {
                c.release();
                throw uncallable(call, t);
            }
            c.release(); // the plugin freed the comm: no later call may pass it or our memory
            if (rc != 0) {
                throw NcclResult.failure(rc, c.plugin.name + " " + call);
            }
        }
    }

    // ---- checks ----

    private <T extends NativeComm> T comm(Object comm, Class<T> type) throws NetException {
        LoadedPlugin p = plugin();
        if (!type.isInstance(comm) || ((NativeComm) comm).plugin != p) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, p.name + ": not a "
                    + type.getSimpleName().replace("Native", "").replace("Comm", " comm").toLowerCase(java.util.Locale.ROOT)
                    + " of this net: " + comm);
        }
        return type.cast(comm);
    }

    private NativeComm dataComm(Comm comm) throws NetException {
        if (comm instanceof NativeListenComm || !(comm instanceof NativeComm c) || c.plugin != plugin()) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, name() + ": not a send or recv comm of this net: " + comm);
        }
        return c;
    }

    private static NativeMemoryHandle handle(NativeComm c, MemoryHandle handle) throws NetException {
        if (!(handle instanceof NativeMemoryHandle h) || h.comm != c) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, c.plugin.name + ": the memory handle was not registered with " + c);
        }
        if (h.released) {
            throw new NetException(NetException.Kind.INVALID_USAGE, c.plugin.name + ": the memory handle was deregistered");
        }
        return h;
    }

    private static void checkNative(MemorySegment data, String call) throws NetException {
        if (data == null || !data.isNative()) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, call + " needs native memory (" + data + ")");
        }
    }

    private long checkData(NativeComm c, NativeMemoryHandle h, MemorySegment data, String call) throws NetException {
        checkNative(data, call);
        long size = data.byteSize();
        PluginDevice d = c.plugin.device(c.dev);
        if (size > d.maxBytes()) {
            String why = abi.version <= 8 ? abi.symbol() + " passes sizes as int"
                    : d.maxBytes() < Integer.MAX_VALUE ? "device " + c.dev + "'s maxP2pBytes is " + d.maxBytes()
                    : "the plugin's test() reports sizes as int";
            throw tooLarge(c, call, size, d.maxBytes(), why + "; split the message into chunks of at most " + d.maxBytes() + " bytes");
        }
        if (!h.covers(data)) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, c.plugin.name + " " + call + ": the buffer (" + size
                    + " bytes at 0x" + Long.toHexString(data.address()) + ") is not inside its registration");
        }
        return size;
    }

    private static NetException tooLarge(NativeComm c, String call, long size, long limit, String hint) {
        return new NetException(NetException.Kind.INVALID_ARGUMENT, c.plugin.name + " " + call + ": " + size
                + " bytes is more than the plugin can take (" + limit + " bytes). Hint: " + hint);
    }

    private NetException uncallable(String call, Throwable t) {
        return new NetException(NetException.Kind.INTERNAL, name() + " " + call + " could not be called: " + t, t);
    }

    /** The identity of one connection attempt: the device and the peer's handle bytes. */
    private record HandleKey(int dev, byte[] handle) {
        @Override
        public boolean equals(Object o) {
            return o instanceof HandleKey k && k.dev == dev && Arrays.equals(k.handle, handle);
        }

        @Override
        public int hashCode() {
            return 31 * dev + Arrays.hashCode(handle);
        }

        @Override
        public String toString() {
            return "dev " + dev + " handle of " + handle.length + " bytes";
        }
    }

    /** Native memory of one connection attempt, stable across its connect retries. */
    private static final class PendingConnect {
        final Arena arena = Arena.ofShared();
        final MemorySegment handle;
        final MemorySegment config;
        final MemorySegment commOut;
        final MemorySegment devCommOut;
        boolean finished;

        PendingConnect(NetAbi abi, byte[] bytes) {
            handle = arena.allocate(abi.handleSize, 8);
            MemorySegment.copy(bytes, 0, handle, JAVA_BYTE_LAYOUT, 0, abi.handleSize);
            config = arena.allocate(JAVA_INT);
            config.set(JAVA_INT, 0, -1); // ncclNetCommConfig_v10_t {trafficClass = NCCL_NET_TRAFFIC_CLASS_UNDEF}
            commOut = arena.allocate(ADDRESS);
            devCommOut = arena.allocate(ADDRESS);
        }
    }
}
