package org.nccl4j.net.ib;

import java.net.SocketException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import jnr.ffi.Pointer;
import org.nccl4j.net.spi.Comm;
import org.nccl4j.net.spi.ListenComm;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.iface.InterfaceSelection;
import org.nccl4j.net.spi.iface.NameFilter;
import org.nccl4j.net.spi.iface.InterfaceSelector;
import org.nccl4j.net.spi.iface.SelectionRequest;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetLogger;
import org.nccl4j.net.spi.NetProperties;
import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.SendComm;

/**
 * NCCL's {@code IB} net ({@code ncclNetIb} of {@code net_ib.cc}, v2.10.3-1): InfiniBand and RoCE
 * ports through libibverbs.
 *
 * <p>What works now is discovery, NCCL's {@code ncclIbInit}: load libibverbs, honour
 * {@code NCCL_IB_DISABLE}, {@code ibv_fork_init}, list the verbs devices, keep every port that is
 * {@code ACTIVE}, InfiniBand or Ethernet (RoCE) and accepted by {@code NCCL_IB_HCA}, up to
 * {@value #MAX_IB_DEVS}; then {@link #devices()} and {@link #getProperties(int)} describe them.
 * Unlike NCCL, finding no usable port fails {@link #init} with the reason rather than reporting
 * zero devices, so nccl4j's initNet can say why it fell back to {@code Socket}.
 *
 * <p>The data path ({@code listen} through {@code closeListen}) is not written yet: every such
 * method throws {@link NetException.Kind#INVALID_USAGE}. So that a host with an active IB/RoCE port
 * does not pick IB and then fail, {@link #init} refuses even when discovery finds ports: it logs
 * them, closes them and throws {@link #noDataPath}, and initNet falls back to {@code Socket} with an
 * INFO line ({@code nccl4j doctor} shows the same reason).
 *
 * <p>Not yet ported from {@code ncclIbInit}: the out-of-band IP interface choice
 * ({@code findInterfaces}, needed by the data path's TCP handshake) and the per-port async-event
 * threads (which only log {@code ibv_get_async_event}).
 */
public final class IbNet implements Net {
    /** The name {@code NCCL_NET} selects. */
    public static final String NAME = "IB";
    /** {@code MAX_IB_DEVS}: (device, port) pairs kept. */
    public static final int MAX_IB_DEVS = 16;

    /** The message of every data-path method until the data path is ported. */
    static final String DATA_PATH_PENDING = "IB data path arrives with a later issue (listen, connect, accept, "
            + "regMr, isend, irecv, test are not ported yet): use NCCL_NET=Socket";

    private static final long SUBSYS_INIT_NET = NetLogger.INIT | NetLogger.NET;
    /** {@code NCCL_ENV}, which {@link NetLogger} has no constant for. */
    private static final long SUBSYS_ENV = 128;

    /** {@code ibv_fork_init} runs once per process, like NCCL's under {@code ncclIbLock}. */
    private static final AtomicBoolean FORK_INIT_DONE = new AtomicBoolean();
    /** NCCL shows {@code NCCL_IB_HCA set to ...} once ({@code shownIbHcaEnv}). */
    private static final AtomicBoolean HCA_SHOWN = new AtomicBoolean();

    private final Path sysRoot;
    private final Supplier<Verbs> loader;

    private NetLogger logger = (level, subsystem, message) -> { };
    private Verbs verbs;
    private List<IbDevice> devices;
    private List<Pointer> contexts = List.of();
    private int ptrSupport;

    /** A net reading {@code /sys} and the process-wide libibverbs binding. */
    public IbNet() {
        this(Path.of("/sys"), Verbs::load);
    }

    /**
     * @param sysRoot where sysfs is mounted ({@code /sys})
     * @param loader  returns the binding or throws {@link UnsatisfiedLinkError}
     */
    IbNet(Path sysRoot, Supplier<Verbs> loader) {
        this.sysRoot = sysRoot;
        this.loader = loader;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public synchronized void init(NetContext context) throws NetException {
        Objects.requireNonNull(context, "context");
        if (devices != null) {
            return;
        }
        logger = context.logger() == null ? logger : context.logger();

        long disable = intParam(context, "NCCL_IB_DISABLE", 0);
        if (disable != 0) {
            throw new NetException(NetException.Kind.SYSTEM,
                    "IB disabled by NCCL_IB_DISABLE=" + context.param("NCCL_IB_DISABLE"));
        }

        Path verbsDir = sysRoot.resolve("class").resolve("infiniband_verbs");
        if (!Files.isDirectory(verbsDir)) {
            // libibverbs' own first step (rdma-core's check_abi_version): without this directory the
            // kernel exposes no RDMA device and ibv_get_device_list fails with ENOSYS. Checked before
            // binding the library: jnr-ffi's binding took 250-300 ms of a rank JVM's init on 2 cores.
            log(NetLogger.INFO, SUBSYS_INIT_NET, "NET/IB : No device found.");
            throw new NetException(NetException.Kind.SYSTEM, "no active IB/RoCE port found (0 devices seen; "
                    + verbsDir + " is absent: the kernel exposes no RDMA device; libibverbs not loaded)");
        }

        Verbs v;
        try {
            v = loader.get();
        } catch (LinkageError | RuntimeException e) {
            log(NetLogger.INFO, NetLogger.INIT, "Failed to open libibverbs.so[.1]");
            // An UnsatisfiedLinkError without a cause is dlopen failing for every name; anything
            // else is jnr-ffi itself failing (a missing ASM or jffi stub) and says so.
            String why = e instanceof UnsatisfiedLinkError && e.getCause() == null
                    ? "libibverbs not found: " + e.getMessage()
                    : e instanceof UnsatisfiedLinkError ? e.getMessage() : "jnr-ffi could not bind libibverbs: " + e;
            throw new NetException(NetException.Kind.SYSTEM, why, e);
        }
        verbs = v;

        if (FORK_INIT_DONE.compareAndSet(false, true)) {
            int rc = v.forkInit();
            if (rc != 0) {
                log(NetLogger.WARN, SUBSYS_INIT_NET, "ibv_fork_init() failed: " + rc);
            }
        }

        String hca = context.param("NCCL_IB_HCA");
        if (hca != null && HCA_SHOWN.compareAndSet(false, true)) {
            log(NetLogger.INFO, NetLogger.NET | SUBSYS_ENV, "NCCL_IB_HCA set to " + hca);
        }
        discover(v, NameFilter.parse(hca), context);
    }

    /** {@code ncclIbInit}'s device loop. */
    private void discover(Verbs v, NameFilter filter, NetContext context) throws NetException {
        List<IbDevice> kept = new ArrayList<>();
        List<Pointer> open = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        String listFailure = null;
        Verbs.DeviceList list = null;
        try {
            try {
                list = v.deviceList();
            } catch (Verbs.VerbsException e) {
                listFailure = e.getMessage();
            }
            int n = list == null ? 0 : list.count();
            for (int d = 0; d < n && kept.size() < MAX_IB_DEVS; d++) {
                String name = list.name(d);
                Pointer ctx;
                try {
                    ctx = v.open(list.device(d));
                } catch (Verbs.VerbsException e) {
                    log(NetLogger.WARN, SUBSYS_INIT_NET, "NET/IB : Unable to open device " + name);
                    seen.add(name + " (" + e.getMessage() + ")");
                    continue;
                }
                IbvDeviceAttr devAttr;
                try {
                    devAttr = v.queryDevice(ctx);
                } catch (Verbs.VerbsException e) {
                    log(NetLogger.WARN, SUBSYS_INIT_NET, "NET/IB : Unable to query device " + name);
                    seen.add(name + " (" + e.getMessage() + ")");
                    closeContext(v, name, ctx);
                    continue;
                }
                int nPorts = 0;
                int physPorts = devAttr.physPortCnt.get();
                StringJoiner ports = new StringJoiner(", ", name + " [", "]").setEmptyValue(name + " [no ports]");
                // NCCL checks MAX_IB_DEVS only per device and can overrun its array on a many-port
                // device; the bound is checked per port here.
                for (int port = 1; port <= physPorts && kept.size() < MAX_IB_DEVS; port++) {
                    IbvPortAttr portAttr;
                    try {
                        portAttr = v.queryPort(ctx, port);
                    } catch (Verbs.VerbsException e) {
                        log(NetLogger.WARN, SUBSYS_INIT_NET, "NET/IB : Unable to query port " + port);
                        ports.add("port " + port + ": " + e.getMessage());
                        continue;
                    }
                    int state = portAttr.state.get();
                    int link = portAttr.linkLayer.get();
                    if (state != Verbs.IBV_PORT_ACTIVE) {
                        ports.add("port " + port + ": " + portStateName(state));
                        continue;
                    }
                    if (link != Verbs.IBV_LINK_LAYER_INFINIBAND && link != Verbs.IBV_LINK_LAYER_ETHERNET) {
                        ports.add("port " + port + ": ACTIVE, link layer " + linkLayerName(link));
                        continue;
                    }
                    if (!filter.matches(name, port)) {
                        ports.add("port " + port + ": excluded by NCCL_IB_HCA=" + filter);
                        continue;
                    }
                    String linkName = link == Verbs.IBV_LINK_LAYER_INFINIBAND ? "IB" : "RoCE";
                    log(NetLogger.TRACE, SUBSYS_INIT_NET, "NET/IB: [" + d + "] " + name + ":" + port + "/" + linkName + " ");
                    String pci = pciPath(sysRoot, name);
                    if (pci == null) {
                        log(NetLogger.WARN, SUBSYS_INIT_NET, "Could not find real path of " + name + " ("
                                + infinibandDir(sysRoot, name).resolve("device") + ")");
                    }
                    int realPort = 0;
                    for (IbDevice k : kept) {
                        if (pci != null && pci.equals(k.pciPath())) {
                            realPort++;
                        }
                    }
                    kept.add(new IbDevice(d, name, port, link,
                            IbSpeed.mbps(portAttr.activeSpeed.get(), portAttr.activeWidth.get()),
                            devAttr.sysImageGuid.longValue(), pci, realPort, devAttr.maxQp.get(), ctx));
                    ports.add("port " + port + ": ACTIVE/" + linkName);
                    nPorts++;
                }
                seen.add(ports.toString());
                if (nPorts == 0) {
                    closeContext(v, name, ctx);
                } else {
                    open.add(ctx);
                }
            }
        } catch (RuntimeException | Error e) {
            for (Pointer ctx : open) {
                v.close(ctx);
            }
            throw e;
        } finally {
            if (list != null) {
                list.close();
            }
        }

        if (kept.isEmpty()) {
            log(NetLogger.INFO, SUBSYS_INIT_NET, "NET/IB : No device found.");
            StringBuilder why = new StringBuilder("no active IB/RoCE port found (").append(seen.size())
                    .append(seen.size() == 1 ? " device seen" : " devices seen");
            if (!seen.isEmpty()) {
                why.append(": ").append(String.join("; ", seen));
            }
            if (listFailure != null) {
                why.append("; ").append(listFailure);
            }
            throw new NetException(NetException.Kind.SYSTEM, why.append(')').toString());
        }

        ptrSupport = PTR_HOST | (gdrSupport(sysRoot) ? PTR_CUDA : 0);
        StringBuilder line = new StringBuilder("NET/IB : Using");
        for (int i = 0; i < kept.size(); i++) {
            IbDevice k = kept.get(i);
            line.append(" [").append(i).append(']').append(k.name()).append(':').append(k.port()).append('/')
                    .append(k.linkName());
        }
        // The out-of-band TCP interface (QP info exchange) follows NCCL's socket interface search.
        line.append(" ; OOB ").append(oobInterface(context));
        log(NetLogger.INFO, SUBSYS_INIT_NET, line.toString());
        // Until the data path exists, a found port must not make initNet pick IB for data: refuse
        // here with what was found, so initNet falls back to Socket and says why.
        for (Pointer ctx : open) {
            v.close(ctx);
        }
        throw noDataPath(line.substring("NET/IB : Using ".length()));
    }

    /**
     * @param found the ports discovery kept, as NCCL's {@code NET/IB : Using} line lists them
     * @return why {@link #init} refuses although ports were found
     */
    static NetException noDataPath(String found) {
        return new NetException(NetException.Kind.SYSTEM, "found " + found
                + " but the IB data path is not ported yet, so IB is not used (initNet falls back to Socket)");
    }

    private static String oobInterface(NetContext context) throws NetException {
        try {
            InterfaceSelection oob = InterfaceSelector.select(SelectionRequest.fromParams(context::param, 1));
            if (oob.isEmpty()) {
                throw new NetException(NetException.Kind.SYSTEM, "NET/IB : No IP interface found (" + oob.reason() + ")");
            }
            return oob.ncclList();
        } catch (SocketException | IllegalArgumentException e) {
            throw new NetException(NetException.Kind.SYSTEM, "NET/IB : cannot choose the OOB interface: " + e.getMessage(), e);
        }
    }

    private void closeContext(Verbs v, String name, Pointer ctx) {
        int rc = v.close(ctx);
        if (rc != 0) {
            log(NetLogger.WARN, SUBSYS_INIT_NET, "NET/IB : ibv_close_device(" + name + ") failed: " + rc);
        }
    }

    @Override
    public synchronized int devices() throws NetException {
        return initialised().size();
    }

    @Override
    public synchronized NetProperties getProperties(int dev) throws NetException {
        List<IbDevice> devs = initialised();
        if (dev < 0 || dev >= devs.size()) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT,
                    "IB device " + dev + " does not exist: " + devs.size() + " device(s)");
        }
        IbDevice d = devs.get(dev);
        return new NetProperties(d.name(), d.pciPath(), d.guid(), ptrSupport, d.speed(), d.port() + d.realPort(),
                d.maxQp(), 0f, 1);
    }

    private List<IbDevice> initialised() throws NetException {
        if (devices == null) {
            throw new NetException(NetException.Kind.INVALID_USAGE, "IB net used before a successful init()");
        }
        return devices;
    }

    // The data path. Unreachable today: init() fails on every machine the project has (no RDMA
    // device), so nccl4j never hands this net a connection. It arrives with its own issue.

    @Override
    public ListenComm listen(int dev, byte[] handle) throws NetException {
        throw dataPathPending();
    }

    @Override
    public SendComm connect(int dev, byte[] handle) throws NetException {
        throw dataPathPending();
    }

    @Override
    public RecvComm accept(ListenComm listenComm) throws NetException {
        throw dataPathPending();
    }

    @Override
    public MemoryHandle regMr(Comm comm, MemorySegment data, int type) throws NetException {
        throw dataPathPending();
    }

    @Override
    public void deregMr(Comm comm, MemoryHandle handle) throws NetException {
        throw dataPathPending();
    }

    @Override
    public Request isend(SendComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
        throw dataPathPending();
    }

    @Override
    public Request irecv(RecvComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
        throw dataPathPending();
    }

    @Override
    public Request iflush(RecvComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
        throw dataPathPending();
    }

    @Override
    public long test(Request request) throws NetException {
        throw dataPathPending();
    }

    @Override
    public void closeSend(SendComm comm) throws NetException {
        throw dataPathPending();
    }

    @Override
    public void closeRecv(RecvComm comm) throws NetException {
        throw dataPathPending();
    }

    @Override
    public void closeListen(ListenComm comm) throws NetException {
        throw dataPathPending();
    }

    private static NetException dataPathPending() {
        return new NetException(NetException.Kind.INVALID_USAGE, DATA_PATH_PENDING);
    }

    /** Closes the verbs contexts kept by {@link #init}; the net is then uninitialised. */
    @Override
    public synchronized void shutdown() {
        Verbs v = verbs;
        for (Pointer ctx : contexts) {
            v.close(ctx);
        }
        contexts = List.of();
        devices = null;
    }

    // ---- helpers, package-private for tests -------------------------------------------------

    /**
     * NCCL's {@code ncclIbGetPciPath}: {@code realpath(/sys/class/infiniband/<dev>/device)} with its
     * last character replaced by {@code 0}, which merges the PCI functions of one multi-port NIC.
     *
     * @return the path, or {@code null} if it cannot be resolved
     */
    static String pciPath(Path sysRoot, String device) {
        try {
            String p = infinibandDir(sysRoot, device).resolve("device").toRealPath().toString();
            return p.isEmpty() ? p : p.substring(0, p.length() - 1) + '0';
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    private static Path infinibandDir(Path sysRoot, String device) {
        return sysRoot.resolve("class").resolve("infiniband").resolve(device);
    }

    /**
     * NCCL's {@code ncclIbGdrSupport}: GPUDirect RDMA needs the NVIDIA peer-memory module,
     * {@code nv_peer_mem} or {@code nvidia-peermem}.
     */
    static boolean gdrSupport(Path sysRoot) {
        Path peers = sysRoot.resolve("kernel").resolve("mm").resolve("memory_peers");
        return Files.exists(peers.resolve("nv_mem").resolve("version"))
                || Files.exists(peers.resolve("nvidia-peermem").resolve("version"));
    }

    /** An integer parameter as {@code NCCL_PARAM} reads it, but refusing garbage. */
    static long intParam(NetContext context, String name, long defaultValue) throws NetException {
        String value = context.param(name);
        if (value == null || value.isBlank()) {
            return defaultValue;
        }
        try {
            return Long.decode(value.strip());
        } catch (NumberFormatException e) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT,
                    name + "=" + value + " is not an integer", e);
        }
    }

    static String portStateName(int state) {
        return switch (state) {
            case 0 -> "NOP";
            case 1 -> "DOWN";
            case 2 -> "INIT";
            case 3 -> "ARMED";
            case 4 -> "ACTIVE";
            case 5 -> "ACTIVE_DEFER";
            default -> "state " + state;
        };
    }

    static String linkLayerName(int link) {
        return switch (link) {
            case Verbs.IBV_LINK_LAYER_UNSPECIFIED -> "unspecified";
            case Verbs.IBV_LINK_LAYER_INFINIBAND -> "InfiniBand";
            case Verbs.IBV_LINK_LAYER_ETHERNET -> "Ethernet";
            default -> String.valueOf(link);
        };
    }

    private void log(int level, long subsystem, String message) {
        if (logger.enabled(level)) {
            logger.log(level, subsystem, message);
        }
    }
}
