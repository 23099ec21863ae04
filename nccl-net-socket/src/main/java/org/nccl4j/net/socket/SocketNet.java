package org.nccl4j.net.socket;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.nccl4j.net.spi.auth.ConnectionAuth;
import org.nccl4j.net.spi.iface.AddressText;
import org.nccl4j.net.spi.iface.InterfaceSelection;
import org.nccl4j.net.spi.iface.InterfaceSelector;
import org.nccl4j.net.spi.iface.SelectionRequest;

/**
 * NCCL's {@code Socket} network ({@code ncclNetSocket}) on Netty.
 *
 * <p>Devices are the interfaces NCCL's search picks (at most {@value InterfaceSelector#MAX_IFS};
 * {@code NCCL_SOCKET_IFNAME}, {@code NCCL_SOCKET_FAMILY}, {@code NCCL_COMM_ID}). A connection is
 * one control TCP connection plus {@code NCCL_SOCKET_NTHREADS × NCCL_NSOCKS_PERTHREAD} data
 * connections (see {@link SocketTuning}); the listener decides the count and ships it in the
 * handle. Each message is an 8-byte size on the control connection followed by its bytes,
 * split over the data connections in pieces of {@code max(64 KiB, size / nSocks)} dealt
 * round-robin with a per-connection counter that both ends advance alike.
 *
 * <p>All sockets of one network instance share one Netty event loop group (daemon threads
 * named {@code nccl4j-net-socket-*}, shut down by {@link #shutdown()}): epoll where Netty's
 * native transport loads, NIO otherwise. {@code isend}/{@code irecv} never block: they hand
 * the message to the event loops and {@code test} reads its state. Sent bytes are written from
 * the caller's memory without copying; large received pieces are read by the socket straight
 * into the caller's (native) memory. Up to {@value SocketComm#MAX_REQUESTS} requests per comm;
 * a ninth fails with {@code INTERNAL}, as in NCCL. A peer that goes away fails the requests in
 * flight with {@code REMOTE}, naming the peer.
 */
public final class SocketNet implements Net {
    /** {@code NCCL_SOCKET_NTHREADS}: event loops one connection's data sockets are spread over. */
    public static final String PARAM_NTHREADS = "NCCL_SOCKET_NTHREADS";
    /** {@code NCCL_NSOCKS_PERTHREAD}: data sockets per thread. */
    public static final String PARAM_NSOCKS_PERTHREAD = "NCCL_NSOCKS_PERTHREAD";
    /** NCCL's {@code maxComms} for Socket devices. */
    static final int MAX_COMMS = 65536;
    private static final int BACKLOG = 16384;

    private final NettyTransport requestedTransport;
    private final ConcurrentHashMap<String, PendingConnect> pending = new ConcurrentHashMap<>();
    private final AtomicInteger nextLoop = new AtomicInteger();
    /** Open comms driven by the calling threads: no event loop closes them at shutdown, so it does. */
    private final Set<SocketComm> directComms = ConcurrentHashMap.newKeySet();
    /**
     * Open listeners: closed at shutdown with the connections that arrived and were never
     * accepted (those handed to calling threads are off the event loops, which would not close them).
     */
    private final Set<SocketListenComm> listens = ConcurrentHashMap.newKeySet();
    private NetLogger log;
    /** Every connection's authentication ({@code NCCL4J_AUTH_KEY}), or {@code null}. */
    private ConnectionAuth auth;
    private InterfaceSelection selection;
    private List<SocketDevice> devices;
    private SocketTuning[] tuning;
    private NettyTransport transport;
    private MultiThreadIoEventLoopGroup group;
    private EventLoop[] loops;
    private volatile boolean initialized;
    private volatile boolean shutdown;

    /** Creates the network; nothing happens until {@link #init}. */
    public SocketNet() {
        this(null);
    }

    /** @param transport the Netty transport to use, or {@code null} for the best available */
    SocketNet(NettyTransport transport) {
        this.requestedTransport = transport;
    }

    @Override
    public String name() {
        return SocketNetProvider.NAME;
    }

    @Override
    public synchronized void init(NetContext context) throws NetException {
        if (initialized || shutdown) {
            throw new NetException(NetException.Kind.INVALID_USAGE, "NET/Socket : init called twice");
        }
        log = context.logger();
        try {
            auth = ConnectionAuth.of(context.param(ConnectionAuth.KEY_PARAM), context.param(ConnectionAuth.KEY_FILE_PARAM));
        } catch (IllegalArgumentException e) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, "NET/Socket : " + e.getMessage(), e);
        }
        if (auth != null) {
            log.log(NetLogger.INFO, NetLogger.INIT, "NET/Socket : connections authenticated (" + ConnectionAuth.KEY_PARAM + ")");
        }
        selection = selectInterfaces(context);
        List<SocketDevice> devs = new ArrayList<>();
        for (var ni : selection.interfaces()) {
            devs.add(SocketDevice.probe(ni, Path.of("/sys/class/net"), log));
        }
        int nThreadsParam = SocketTuning.parseParam(context.param(PARAM_NTHREADS), PARAM_NTHREADS, SocketTuning.AUTO, log);
        int nSocksParam = SocketTuning.parseParam(context.param(PARAM_NSOCKS_PERTHREAD), PARAM_NSOCKS_PERTHREAD,
                SocketTuning.AUTO, log);
        SocketTuning[] tunings = new SocketTuning[devs.size()];
        Set<SocketTuning> distinct = new LinkedHashSet<>();
        int maxThreads = 1;
        int cores = Runtime.getRuntime().availableProcessors();
        for (int d = 0; d < tunings.length; d++) {
            tunings[d] = SocketTuning.resolve(nThreadsParam, nSocksParam, devs.get(d).vendor(), cores, log);
            distinct.add(tunings[d]);
            maxThreads = Math.max(maxThreads, tunings[d].nThreads());
        }
        for (SocketTuning t : distinct) {
            if (t.nSocks() > 0) {
                log.log(NetLogger.INFO, NetLogger.INIT, "NET/Socket: Using " + t.nThreads() + " threads and "
                        + t.nSocksPerThread() + " sockets per thread");
            }
        }
        NettyTransport chosen = requestedTransport != null ? requestedTransport : NettyTransport.best();
        if (chosen == NettyTransport.EPOLL && NettyTransport.epollUnavailableReason() != null) {
            throw new NetException(NetException.Kind.SYSTEM, "NET/Socket : epoll transport requested but unavailable: "
                    + NettyTransport.epollUnavailableReason());
        }
        int nLoops = eventLoopCount(maxThreads, cores);
        MultiThreadIoEventLoopGroup g = new MultiThreadIoEventLoopGroup(nLoops,
                new DefaultThreadFactory("nccl4j-net-socket", true), chosen.ioHandlerFactory());
        List<EventLoop> children = new ArrayList<>();
        for (EventExecutor e : g) {
            children.add((EventLoop) e);
        }
        devices = List.copyOf(devs);
        tuning = tunings;
        transport = chosen;
        group = g;
        loops = children.toArray(EventLoop[]::new);
        String why = chosen == NettyTransport.EPOLL ? "" : requestedTransport == NettyTransport.NIO ? " (requested)"
                : " (epoll unavailable: " + NettyTransport.epollUnavailableReason() + ")";
        log.log(NetLogger.INFO, NetLogger.INIT | NetLogger.NET, "NET/Socket : Netty " + chosen.displayName()
                + " transport" + why + ", " + nLoops + " event loop threads");
        log.log(NetLogger.INFO, NetLogger.INIT | NetLogger.NET, "NET/Socket : " + selection.reason());
        log.log(NetLogger.INFO, NetLogger.INIT | NetLogger.NET, "NET/Socket : Using " + selection.ncclList());
        initialized = true;
    }

    private InterfaceSelection selectInterfaces(NetContext context) throws NetException {
        SelectionRequest request;
        try {
            request = SelectionRequest.fromParams(context::param, InterfaceSelector.MAX_IFS);
        } catch (IllegalArgumentException e) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, e.getMessage(), e);
        }
        InterfaceSelection found;
        try {
            found = InterfaceSelector.select(request);
        } catch (SocketException e) {
            throw new NetException(NetException.Kind.SYSTEM, "NET/Socket : cannot list network interfaces : " + e, e);
        }
        if (found.isEmpty()) {
            log.log(NetLogger.WARN, NetLogger.INIT | NetLogger.NET, "NET/Socket : no interface found");
            throw new NetException(NetException.Kind.SYSTEM, "NET/Socket : no interface found (" + found.reason() + ")");
        }
        return found;
    }

    /** One loop per core (up to NCCL's 16 helper threads), and at least as many as one connection spreads over. */
    static int eventLoopCount(int maxThreadsPerConnection, int cores) {
        return Math.max(maxThreadsPerConnection, Math.clamp(cores, 1, SocketTuning.MAX_THREADS));
    }

    /**
     * @return the interface search that chose the devices, with its reason (for diagnostics)
     * @throws IllegalStateException before {@link #init}
     */
    public InterfaceSelection interfaceSelection() {
        if (!initialized) {
            throw new IllegalStateException("NET/Socket : not initialised");
        }
        return selection;
    }

    /**
     * @return {@code "epoll"} or {@code "NIO"}: the Netty transport in use
     * @throws IllegalStateException before {@link #init}
     */
    public String transportName() {
        if (!initialized) {
            throw new IllegalStateException("NET/Socket : not initialised");
        }
        return transport.displayName();
    }

    private void checkReady() throws NetException {
        if (!initialized) {
            throw new NetException(NetException.Kind.INVALID_USAGE, "NET/Socket : not initialised");
        }
        if (shutdown) {
            throw new NetException(NetException.Kind.INVALID_USAGE, "NET/Socket : network was shut down");
        }
    }

    @Override
    public int devices() throws NetException {
        checkReady();
        return devices.size();
    }

    private SocketDevice device(int dev) throws NetException {
        checkReady();
        if (dev < 0 || dev >= devices.size()) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, "NET/Socket : device " + dev
                    + " does not exist (devices 0 to " + (devices.size() - 1) + ")");
        }
        return devices.get(dev);
    }

    @Override
    public NetProperties getProperties(int dev) throws NetException {
        SocketDevice d = device(dev);
        return new NetProperties(d.name(), d.pciPath(), dev, Net.PTR_HOST, d.speed(), 0, MAX_COMMS, 0f, 1);
    }

    @Override
    public ListenComm listen(int dev, byte[] handle) throws NetException {
        SocketDevice d = device(dev);
        if (handle == null || handle.length < SocketHandle.SIZE) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, "NET/Socket : handle buffer must hold "
                    + SocketHandle.SIZE + " bytes");
        }
        SocketTuning t = tuning[dev];
        SocketListenComm comm = new SocketListenComm(t.nSocks(), direct(), log, auth);
        ChannelFuture bound = new ServerBootstrap().group(group).channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, BACKLOG)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        comm.initChild(ch);
                    }
                })
                .bind(new InetSocketAddress(d.iface().address(), 0));
        if (!bound.awaitUninterruptibly(SocketComm.CLOSE_WAIT.toMillis()) || !bound.isSuccess()) {
            bound.channel().close();
            throw new NetException(NetException.Kind.SYSTEM, "NET/Socket : listen on " + d.iface().ncclAddress()
                    + " (" + d.name() + ") failed : " + bound.cause(), bound.cause());
        }
        comm.server(bound.channel());
        try {
            new SocketHandle((InetSocketAddress) bound.channel().localAddress(), t.nSocks(), t.nThreads())
                    .writeTo(handle);
        } catch (NetException e) {
            comm.close();
            throw e;
        }
        listens.add(comm);
        return comm;
    }

    @Override
    public SendComm connect(int dev, byte[] handle) throws NetException {
        device(dev);
        SocketHandle h = SocketHandle.parse(handle);
        String key = dev + "/" + HexFormat.of().formatHex(handle, 0, SocketHandle.SIZE);
        PendingConnect attempt = pending.computeIfAbsent(key, k -> PendingConnect.start(h, transport, loopsFor(h),
                direct(), auth));
        try {
            SocketSendComm comm = attempt.poll();
            if (comm != null) {
                pending.remove(key, attempt);
                track(comm);
            }
            return comm;
        } catch (NetException e) {
            pending.remove(key, attempt);
            throw e;
        }
    }

    /**
     * Whether a comm's control connection is driven by the threads that call {@code isend},
     * {@code irecv} and {@code test} ({@link DirectSocket}): where the epoll transport exposes its
     * descriptor. Data connections stay on the event loops (their pieces move in parallel). Each
     * end decides alone; the bytes on the wire are the same.
     */
    private boolean direct() {
        return transport == NettyTransport.EPOLL;
    }

    /** Control connection on the next loop; data connection i on the {@code i % nThreads}-th loop after it. */
    private EventLoop[] loopsFor(SocketHandle h) {
        int base = Math.floorMod(nextLoop.getAndIncrement(), loops.length);
        EventLoop[] chosen = new EventLoop[h.nSocks() + 1];
        chosen[0] = loops[base];
        for (int i = 0; i < h.nSocks(); i++) {
            chosen[i + 1] = loops[(base + 1 + i % Math.max(1, h.nThreads())) % loops.length];
        }
        return chosen;
    }

    @Override
    public RecvComm accept(ListenComm listenComm) throws NetException {
        checkReady();
        SocketListenComm l = cast(listenComm, SocketListenComm.class, "listen comm");
        SocketListenComm.Arrival a = l.poll();
        if (a == null) {
            return null;
        }
        int nSocks = a.channels.length - 1;
        InboundStream[] dataStreams = new InboundStream[nSocks];
        Channel[] data = new Channel[nSocks];
        System.arraycopy(a.channels, 0, data, 0, nSocks);
        System.arraycopy(a.streams, 0, dataStreams, 0, nSocks);
        Channel control = a.channels[nSocks];
        String peer = control.remoteAddress() instanceof InetSocketAddress addr
                ? AddressText.of(addr) : String.valueOf(control.remoteAddress());
        return track(new SocketRecvComm(control, a.streams[nSocks], data, dataStreams, a.direct, peer));
    }

    @Override
    public MemoryHandle regMr(Comm comm, MemorySegment data, int type) throws NetException {
        checkReady();
        if (!(comm instanceof SocketComm)) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, "NET/Socket : regMr needs a send or receive comm"
                    + " of this network, got " + comm);
        }
        if (type != Net.PTR_HOST) {
            throw new NetException(NetException.Kind.INTERNAL, "NET/Socket : only host memory (type 0x1) can be"
                    + " registered, got type 0x" + Integer.toHexString(type));
        }
        return HostRegistration.INSTANCE;
    }

    @Override
    public void deregMr(Comm comm, MemoryHandle handle) throws NetException {
        if (handle != HostRegistration.INSTANCE) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, "NET/Socket : not a Socket registration: " + handle);
        }
    }

    @Override
    public Request isend(SendComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
        checkReady();
        SocketSendComm c = cast(comm, SocketSendComm.class, "send comm");
        if (data == null) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, "NET/Socket : isend of a null buffer");
        }
        return c.send(data);
    }

    @Override
    public Request irecv(RecvComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
        checkReady();
        SocketRecvComm c = cast(comm, SocketRecvComm.class, "receive comm");
        if (data == null || data.isReadOnly()) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, "NET/Socket : irecv into a "
                    + (data == null ? "null" : "read-only") + " buffer");
        }
        return c.receive(data);
    }

    @Override
    public long test(Request request) throws NetException {
        if (!(request instanceof SocketRequest r)) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, "NET/Socket : not a Socket request: " + request);
        }
        if (r.state() == SocketRequest.ACTIVE && r.comm.direct != null) {
            r.comm.progressDirect();
        }
        switch (r.state()) {
            case SocketRequest.ACTIVE:
                return -1;
            case SocketRequest.DONE: {
                long size = r.size();
                r.release();
                return size;
            }
            case SocketRequest.FAILED: {
                NetException e = r.error();
                r.release();
                throw new NetException(e.kind(), e.getMessage(), e);
            }
            default:
                throw new NetException(NetException.Kind.INVALID_USAGE, "NET/Socket : request tested after it"
                        + " completed (it was released by the test that reported completion)");
        }
    }

    private <C extends SocketComm> C track(C comm) {
        if (comm.direct != null) {
            directComms.add(comm);
        }
        return comm;
    }

    @Override
    public void closeSend(SendComm comm) throws NetException {
        SocketSendComm c = cast(comm, SocketSendComm.class, "send comm");
        c.close();
        directComms.remove(c);
    }

    @Override
    public void closeRecv(RecvComm comm) throws NetException {
        SocketRecvComm c = cast(comm, SocketRecvComm.class, "receive comm");
        c.close();
        directComms.remove(c);
    }

    @Override
    public void closeListen(ListenComm comm) throws NetException {
        SocketListenComm l = cast(comm, SocketListenComm.class, "listen comm");
        l.close();
        listens.remove(l);
    }

    /** Its event loops stop with the last communicator; the next one initialises a new instance. */
    @Override
    public boolean restartable() {
        return true;
    }

    @Override
    public int maxRequests() {
        return SocketComm.MAX_REQUESTS;
    }

    /**
     * Abandons connects in progress, closes the listeners left open (with what arrived at them) and
     * the comms the calling threads drive, and stops the event loops (their threads end; the
     * sockets they hold close).
     */
    @Override
    public synchronized void shutdown() {
        if (shutdown) {
            return;
        }
        shutdown = true;
        pending.values().forEach(PendingConnect::abandon);
        pending.clear();
        listens.forEach(SocketListenComm::close);
        listens.clear();
        directComms.forEach(SocketComm::close);
        directComms.clear();
        if (group != null) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(SocketComm.CLOSE_WAIT.toMillis());
        }
    }

    private static <T> T cast(Object o, Class<T> type, String what) throws NetException {
        if (!type.isInstance(o)) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, "NET/Socket : not a Socket " + what + ": " + o);
        }
        return type.cast(o);
    }
}
