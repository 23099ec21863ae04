package org.nccl4j.core.param;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * The registry: every parameter nccl4j and its bundled plugins read. The README's configuration
 * table is checked against this list by a test.
 */
public final class Params {
    private static final Map<String, Param> BY_NAME = new LinkedHashMap<>();
    private static final String P2P_ONE_CHANNEL = "the host engine runs send/recv on one channel "
            + "(only the p2p channel count of the INIT line and of topo sim follows it)";
    private static final String NO_COLLNET = "nccl4j sets up no CollNet (no net provides one; "
            + "native CollNet plugins are not adapted), so it never runs; its graph is still searched and printed, as NCCL does";
    private static final String IB_NO_DATA = "read but not applied: the IB net discovers ports and moves no data yet "
            + "(it creates no queue pairs)";
    private static final String NO_AGGREGATION = "read but not applied: a group's collectives run one after another, "
            + "one kernel each (no aggregation)";
    private static final String NO_GDRCOPY = "read but not applied (no GDRCopy support)";
    private static final String NO_GPU_MEMORY = "host ranks have no GPU memory";
    private static final String THREADS_ON_HOST = "a host channel is one thread, so on the host backend "
            + "this only sets how many bytes a call needs per channel (NCCL's thread thresholds: fewer channels for small calls)";

    // Logging.
    /** Log level. */
    public static final Param DEBUG = str("NCCL_DEBUG", null, "log level: VERSION, WARN, INFO, ABORT, TRACE");
    /** Log subsystems. */
    public static final Param DEBUG_SUBSYS = str("NCCL_DEBUG_SUBSYS", "INIT",
            "comma list of INIT, COLL, P2P, SHM, NET, GRAPH, TUNING, ENV, ALLOC, CALL, ALL; ^ excludes");
    /** Log file. */
    public static final Param DEBUG_FILE = str("NCCL_DEBUG_FILE", null, "log file instead of stdout; %h = host, %p = pid");
    /** Routing to System.Logger. */
    public static final Param DEBUG_LOGGER = str("NCCL4J_DEBUG_LOGGER", "auto",
            "also send log lines to System.Logger: on, off, auto (on when a logging framework provides System.Logger)");
    /** User configuration file. */
    public static final Param CONF_FILE = str("NCCL_CONF_FILE", null, "configuration file read instead of ~/.nccl.conf");

    // Bootstrap.
    /** Fixed root address. */
    public static final Param COMM_ID = str("NCCL_COMM_ID", null,
            "<host>:<port> where rank 0 creates the bootstrap root (IPv6: [addr]:port)");
    /** Host identity. */
    public static final Param HOSTID = str("NCCL_HOSTID", null, "replaces hostname + boot id in the host hash");
    /** Interfaces. */
    public static final Param SOCKET_IFNAME = str("NCCL_SOCKET_IFNAME", null,
            "interfaces for bootstrap and Socket net: prefix list, ^ excludes, = exact");
    /** Address family. */
    public static final Param SOCKET_FAMILY = str("NCCL_SOCKET_FAMILY", null, "AF_INET or AF_INET6 to force one family");
    /** Init deadline. */
    public static final Param INIT_TIMEOUT_MS = integer("NCCL4J_INIT_TIMEOUT_MS", "120000",
            "deadline for communicator init, in milliseconds");
    /** Connection authentication. */
    public static final Param AUTH_KEY = str("NCCL4J_AUTH_KEY", null,
            "shared secret (16+ bytes, the same on every rank) that authenticates every bootstrap and Socket net "
                    + "connection: HMAC-SHA256 answer to a fresh challenge; unset: no authentication, as NCCL");
    public static final Param AUTH_KEY_FILE = str("NCCL4J_AUTH_KEY_FILE", null,
            "a file holding NCCL4J_AUTH_KEY (trimmed), so the key stays out of the environment and process listings");
    /** Connect retry window. */
    public static final Param CONNECT_TIMEOUT_MS = integer("NCCL4J_CONNECT_TIMEOUT_MS", "20000",
            "how long a bootstrap connect is retried while refused, in milliseconds (NCCL: 20000 x 1 ms)");

    // Networks.
    /** Network by name. */
    public static final Param NET = str("NCCL_NET", null, "use only the network of this name (Socket, IB, a plugin's name)");
    /** Native plugin. */
    public static final Param NET_PLUGIN = str("NCCL_NET_PLUGIN", null,
            "native plugin to load: a name for libnccl-net-<name>.so, or a path");
    /** Socket helper threads. */
    public static final Param SOCKET_NTHREADS = integer("NCCL_SOCKET_NTHREADS", "-2",
            "Socket net helper threads per connection (-2 = auto: AWS 2, GCP 4, any other NIC 2 from 16 cores, else 0)");
    /** Sockets per thread. */
    public static final Param NSOCKS_PERTHREAD = integer("NCCL_NSOCKS_PERTHREAD", "-2",
            "Socket net data sockets per helper thread (-2 = auto: AWS 8, GCP 1, any other NIC 2 from 16 cores, else 1)");
    /** IB off. */
    public static final Param IB_DISABLE = integer("NCCL_IB_DISABLE", "0", "1 = never use the IB net");
    /** IB devices. */
    public static final Param IB_HCA = str("NCCL_IB_HCA", null, "IB devices to use: dev[:port] list, ^ excludes, = exact");
    /** IB queue pair settings (NCCL's net_ib.cc), not applied. */
    public static final Param IB_GID_INDEX = integer("NCCL_IB_GID_INDEX", "0", "RoCE GID index; " + IB_NO_DATA);
    /** IB queue pair settings, not applied. */
    public static final Param IB_TIMEOUT = integer("NCCL_IB_TIMEOUT", "14", "IB ack timeout exponent; " + IB_NO_DATA);
    /** IB queue pair settings, not applied. */
    public static final Param IB_RETRY_CNT = integer("NCCL_IB_RETRY_CNT", "7", "IB retry count; " + IB_NO_DATA);
    /** IB queue pair settings, not applied. */
    public static final Param IB_SL = integer("NCCL_IB_SL", "0", "IB service level; " + IB_NO_DATA);
    /** IB queue pair settings, not applied. */
    public static final Param IB_TC = integer("NCCL_IB_TC", "0", "IB traffic class; " + IB_NO_DATA);
    /** IB queue pair settings, not applied. */
    public static final Param IB_PKEY = integer("NCCL_IB_PKEY", "0", "IB partition key index; " + IB_NO_DATA);
    /** IB queue pair settings, not applied. */
    public static final Param IB_USE_INLINE = integer("NCCL_IB_USE_INLINE", "0", "1 = inline small IB sends; " + IB_NO_DATA);
    /** IB queue pair settings, not applied. */
    public static final Param IB_QPS_PER_CONNECTION = integer("NCCL_IB_QPS_PER_CONNECTION", "1",
            "queue pairs per IB connection; " + IB_NO_DATA);
    /** IB adaptive routing, not applied. */
    public static final Param IB_AR_THRESHOLD = integer("NCCL_IB_AR_THRESHOLD", "8192",
            "bytes from which IB sends use adaptive routing; " + IB_NO_DATA);
    /** Shared NET buffers, not applied. */
    public static final Param NET_SHARED_BUFFERS = integer("NCCL_NET_SHARED_BUFFERS", "-2",
            "1 = NET connections share one buffer pool per peer (-2: for send/recv, not for rings); read but not "
                    + "applied: each NET connection has buffers of its own");

    // Execution.
    /** Simple buffer size. */
    public static final Param BUFFSIZE = integer("NCCL_BUFFSIZE", "4194304",
            "Simple protocol buffer bytes per connection (8 steps)");
    /** Channel bounds. */
    public static final Param MIN_NCHANNELS = integer("NCCL_MIN_NCHANNELS", "-2",
            "fewest channels per communicator (-2 = as the topology search finds)");
    /** Channel bounds. */
    public static final Param MAX_NCHANNELS = integer("NCCL_MAX_NCHANNELS", "-2",
            "most channels per communicator (-2 = 32; host ranks run one thread per channel)");
    /** Legacy channel bounds. */
    public static final Param MIN_NRINGS = integer("NCCL_MIN_NRINGS", "-2",
            "legacy name of NCCL_MIN_NCHANNELS, taken when that is unset");
    /** Legacy channel bounds. */
    public static final Param MAX_NRINGS = integer("NCCL_MAX_NRINGS", "-2",
            "legacy name of NCCL_MAX_NCHANNELS, taken when that is unset");
    /** Progress deadline. */
    public static final Param OP_TIMEOUT_MS = integer("NCCL4J_OP_TIMEOUT_MS", "300000",
            "a collective that sees no progress from a peer for this long fails with TIMEOUT, in milliseconds; on GPUs,"
                    + " work unfinished this long after its enqueue aborts the communicator (the watchdog)");

    /** Idle channel workers' polling. */
    public static final Param CHANNEL_SPIN_US = integer("NCCL4J_CHANNEL_SPIN_US", "1000",
            "host backend: how long a channel's thread (channels beyond the first) polls for the next call before it "
                    + "sleeps, in microseconds; a call that finds it asleep pays a wake-up. 0 = sleep at once; "
                    + "with more channel threads than cores it sleeps at once anyway");

    // Devices.
    /** Device backend. */
    public static final Param DEVICE = str("NCCL4J_DEVICE", null,
            "device backend by name: cuda (nccl-gpu-cuda), hip (nccl-gpu-hip: never run on an AMD GPU, so chosen only "
                    + "when named) or host; unset = the first usable by priority: cuda, host (hip is passed by)");
    /** Pinned host device. */
    public static final Param HOST_DEVICE = integer("NCCL4J_HOST_DEVICE", "-1",
            "host backend: pin this rank's device number (-1 = one per rank, automatically)");

    /** CUDA backend: the GPU of a rank. */
    public static final Param CUDA_DEVICE = integer("NCCL4J_CUDA_DEVICE", "-1",
            "cuda backend: this rank's GPU ordinal (-1 = the ranks of a process take GPUs 0, 1, ... in turn)");
    /** HIP backend: the GPU of a rank. */
    public static final Param HIP_DEVICE = integer("NCCL4J_HIP_DEVICE", "-1",
            "hip backend: this rank's AMD GPU ordinal (-1 = the ranks of a process take GPUs 0, 1, ... in turn)");
    /** Ranks sharing a GPU. */
    public static final Param SHARED_DEVICE = integer("NCCL4J_SHARED_DEVICE", "0",
            "1 = ranks may share a GPU (threads of one process or several processes), each on its own stream "
                    + "(development and testing on a one-GPU machine; NCCL refuses two ranks on one GPU); in the topology "
                    + "each is a PCI device of its own beside the GPU");

    // Transports.
    /** SHM off. */
    public static final Param SHM_DISABLE = integer("NCCL_SHM_DISABLE", "0",
            "1 = never connect processes of one host through /dev/shm (the network carries it instead; GPUs too)");
    /** Direct access to the user's buffers between ranks of one process off (NCCL 2.12's). */
    public static final Param P2P_DIRECT_DISABLE = integer("NCCL_P2P_DIRECT_DISABLE", "0",
            "1 = ranks of one process copy every step through the connection's buffer instead of reading the sender's "
                    + "native memory where it lies (host backend: ring collectives on Simple; NCCL 2.12's direct pointers)");

    // Topology, search and tuning (graph/, NCCL v2.10.3).
    /** Topology file. */
    public static final Param TOPO_FILE = str("NCCL_TOPO_FILE", null,
            "topology XML loaded instead of (and completed by) detection");
    /** Topology dump. */
    public static final Param TOPO_DUMP_FILE = str("NCCL_TOPO_DUMP_FILE", null, "write the detected topology XML here");
    /** Rank that dumps the topology. */
    public static final Param TOPO_DUMP_FILE_RANK = integer("NCCL_TOPO_DUMP_FILE_RANK", "0",
            "rank that writes NCCL_TOPO_DUMP_FILE");
    /** Graph file. */
    public static final Param GRAPH_FILE = str("NCCL_GRAPH_FILE", null, "graph XML loaded instead of searching");
    /** Graph dump. */
    public static final Param GRAPH_DUMP_FILE = str("NCCL_GRAPH_DUMP_FILE", null, "write the ring/tree/collnet graphs here");
    /** Rank that dumps the graphs. */
    public static final Param GRAPH_DUMP_FILE_RANK = integer("NCCL_GRAPH_DUMP_FILE_RANK", "0",
            "rank that writes NCCL_GRAPH_DUMP_FILE");
    /** Cross-NIC rings. */
    public static final Param CROSS_NIC = integer("NCCL_CROSS_NIC", "2",
            "rings may use different NICs on different nodes: 0 never, 1 always, 2 if needed");
    /** No NVLink bounce paths. */
    public static final Param NVB_DISABLE = integer("NCCL_NVB_DISABLE", "0", "1 = no paths through an intermediate GPU");
    /** P2P off. */
    public static final Param P2P_DISABLE = integer("NCCL_P2P_DISABLE", "0",
            "1 = no peer-to-peer between devices (GPU ranks of one host then connect through SHM)");
    /** P2P distance. */
    public static final Param P2P_LEVEL = str("NCCL_P2P_LEVEL", null,
            "farthest path for peer-to-peer: LOC, NVL, NVB, PIX, PXB, PHB, SYS (or 0-5)");
    /** GDR distance. */
    public static final Param NET_GDR_LEVEL = str("NCCL_NET_GDR_LEVEL", null,
            "farthest device-NIC path for GPU Direct RDMA: LOC, NVL, NVB, PIX, PXB, PHB, SYS (default PXB)");
    /** GDR for sends. */
    public static final Param NET_GDR_READ = integer("NCCL_NET_GDR_READ", "-2",
            "GPU Direct RDMA for sends: 0 off, 1 on, <0 only with NVLink");
    /** P2P read mode (NCCL's p2p.cc). */
    public static final Param P2P_READ_ENABLE = integer("NCCL_P2P_READ_ENABLE", "-2",
            "1 = the P2P transport's receiver reads the Simple protocol's FIFO from the sender's memory, 0 = the sender "
                    + "writes into the receiver's; unset: reads on NVLink between Ampere (SM80) GPUs",
            "host ranks have no P2P transport");
    /** GDRCopy (NCCL's init.cc). */
    public static final Param GDRCOPY_ENABLE = integer("NCCL_GDRCOPY_ENABLE", "0",
            "1 = the proxy reaches GPU-memory flags through GDRCopy; read but not yet applied (no GDRCopy support)",
            "host ranks have no GPU memory");
    /** GDRCopy details, not applied. */
    public static final Param GDRCOPY_FIFO_ENABLE = integer("NCCL_GDRCOPY_FIFO_ENABLE", "1",
            "1 = with GDRCopy, the proxy's FIFO too; " + NO_GDRCOPY, NO_GPU_MEMORY);
    /** GDRCopy details, not applied. */
    public static final Param GDRCOPY_FLUSH_ENABLE = integer("NCCL_GDRCOPY_FLUSH_ENABLE", "0",
            "1 = with GDRCopy, flush GPU Direct RDMA receives by a GDRCopy read; " + NO_GDRCOPY, NO_GPU_MEMORY);
    /** GDRCopy details, not applied. */
    public static final Param GDRCOPY_TAIL_ENABLE = integer("NCCL_GDRCOPY_TAIL_ENABLE", "1",
            "1 = with GDRCopy, the receive tail too; " + NO_GDRCOPY, NO_GPU_MEMORY);
    /** GPU Direct RDMA flush (NCCL's IB transport), not applied. */
    public static final Param GDR_FLUSH_DISABLE = integer("NCCL_GDR_FLUSH_DISABLE", "0",
            "1 = the IB net skips the RDMA read that flushes GPU Direct RDMA receives (the proxy asks every net to flush "
                    + "them); read but not applied: nccl4j's IB net has no data path yet",
            NO_GPU_MEMORY);
    /** NVLink-bridge preconnect. */
    public static final Param NVB_PRECONNECT = integer("NCCL_NVB_PRECONNECT", "1",
            "1 = connect peers reached through another GPU at init; the cuda backend connects every ring, tree and "
                    + "send/recv peer at init whatever it says", "host ranks have no NVLink");
    /** Pointer checks. */
    public static final Param CHECK_POINTERS = integer("NCCL_CHECK_POINTERS", "0",
            "1 = check each call's buffers; nccl4j always checks (a DeviceBuffer knows its GPU, wrap refuses another "
                    + "GPU's memory, host memory is refused on GPU communicators), so 0 changes nothing");
    /** Launch mode. */
    public static final Param LAUNCH_MODE = str("NCCL_LAUNCH_MODE", null,
            "PARALLEL or GROUP (NCCL: how one thread's GPUs launch; PARALLEL when unset); read but not applied: each "
                    + "rank launches on its own stream, as PARALLEL");
    /** Group stream. */
    public static final Param GROUP_CUDA_STREAM = integer("NCCL_GROUP_CUDA_STREAM", "0",
            "1 = group launches go through an internal CUDA stream (for CUDA 9.0 and 9.1); read but not applied: "
                    + "launches go on the caller's stream", "host ranks launch no kernels");
    /** Kernel stack. */
    public static final Param SET_STACK_SIZE = integer("NCCL_SET_STACK_SIZE", "0",
            "1 = raise the CUDA stack limit to the kernels' need; read but not applied: the default limit",
            "host ranks launch no kernels");
    /** Aggregation. */
    public static final Param AGG_CHANNEL_SIZE = integer("NCCL_AGG_CHANNEL_SIZE", "-2",
            "bytes per channel when a group's collectives are aggregated; " + NO_AGGREGATION);
    /** Aggregation. */
    public static final Param AGG_ALLOC_MODE = str("NCCL_AGG_ALLOC_MODE", null,
            "ROUND_ROBIN = aggregated collectives take channels in turn; " + NO_AGGREGATION);
    /** CPU affinity. */
    public static final Param IGNORE_CPU_AFFINITY = integer("NCCL_IGNORE_CPU_AFFINITY", "0",
            "1 = bind to the device's CPUs without intersecting the process affinity",
            "nccl4j binds no thread to CPUs; host ranks run where the JVM runs (place it with taskset or numactl)");
    /** P2P channel bounds. */
    public static final Param MIN_P2P_NCHANNELS = integer("NCCL_MIN_P2P_NCHANNELS", "1", "fewest send/recv channels",
            P2P_ONE_CHANNEL);
    /** P2P channel bounds. */
    public static final Param MAX_P2P_NCHANNELS = integer("NCCL_MAX_P2P_NCHANNELS", "32", "most send/recv channels",
            P2P_ONE_CHANNEL);
    /** CollNet. */
    public static final Param COLLNET_ENABLE = integer("NCCL_COLLNET_ENABLE", "0", "1 = allow the CollNet algorithm",
            NO_COLLNET);
    /** CollNet node floor. */
    public static final Param COLLNET_NODE_THRESHOLD = integer("NCCL_COLLNET_NODE_THRESHOLD", "2",
            "fewest nodes for which CollNet is used", NO_COLLNET);
    /** Algorithms. */
    public static final Param ALGO = str("NCCL_ALGO", null, "algorithms allowed: Tree, Ring, CollNet, RecDbl, HalvDbl (host backend, AllReduce; unset allows RecDbl, not HalvDbl) list; ^ excludes");
    /** Protocols. */
    public static final Param PROTO = str("NCCL_PROTO", null, "protocols allowed: LL, LL128, Simple list; ^ excludes");
    /** Threads per block. */
    public static final Param NTHREADS = integer("NCCL_NTHREADS", "-2",
            "threads per channel for Simple and LL (-2 = auto); " + THREADS_ON_HOST);
    /** LL128 threads. */
    public static final Param LL128_NTHREADS = integer("NCCL_LL128_NTHREADS", "-2",
            "threads per channel for LL128 (-2 = auto); " + THREADS_ON_HOST);
    /** Thread thresholds. */
    public static final Param THREAD_THRESHOLDS = str("NCCL_THREAD_THRESHOLDS", null,
            "bytes per thread below which fewer threads run: Tree LL LL128 Simple Ring LL LL128 Simple");
    /** LL buffer. */
    public static final Param LL_BUFFSIZE = integer("NCCL_LL_BUFFSIZE", "-2", "LL protocol buffer bytes per connection (-2 = 524288)");
    /** LL128 buffer. */
    public static final Param LL128_BUFFSIZE = integer("NCCL_LL128_BUFFSIZE", "-2",
            "LL128 protocol buffer bytes per connection (-2 = 4915200)");

    private Params() {
    }

    private static Param str(String name, String def, String meaning) {
        return register(new Param(name, Param.Kind.STRING, def, meaning, null));
    }

    private static Param integer(String name, String def, String meaning) {
        return integer(name, def, meaning, null);
    }

    private static Param integer(String name, String def, String meaning, String hostNote) {
        return register(new Param(name, Param.Kind.INT, def, meaning, hostNote));
    }

    private static synchronized Param register(Param p) {
        if (BY_NAME.putIfAbsent(p.envName(), p) != null) {
            throw new IllegalStateException("parameter " + p.envName() + " registered twice");
        }
        return p;
    }

    /** @return every registered parameter, in declaration order */
    public static List<Param> all() {
        return Collections.unmodifiableList(new ArrayList<>(BY_NAME.values()));
    }

    /**
     * @param envName an {@code NCCL_*} name
     * @return the parameter, or {@code null} if none has that name
     */
    public static Param find(String envName) {
        return BY_NAME.get(envName);
    }

    /**
     * @param p a parameter
     * @return whether its value is a secret that is never printed ({@code doctor} says "(set)")
     */
    public static boolean isSecret(Param p) {
        return p == AUTH_KEY;
    }

    /**
     * @param envName an {@code NCCL_*} name
     * @return the parameter
     * @throws NcclException with {@link Result#INVALID_ARGUMENT} if none has that name
     */
    public static Param require(String envName) {
        Param p = find(envName);
        if (p == null) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "unknown parameter " + envName,
                    "run './nccl4j doctor' for the list of parameters");
        }
        return p;
    }
}
