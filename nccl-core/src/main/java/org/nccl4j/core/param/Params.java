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
            "Socket net helper threads per connection (-2 = auto)");
    /** Sockets per thread. */
    public static final Param NSOCKS_PERTHREAD = integer("NCCL_NSOCKS_PERTHREAD", "-2",
            "Socket net data sockets per helper thread (-2 = auto)");
    /** IB off. */
    public static final Param IB_DISABLE = integer("NCCL_IB_DISABLE", "0", "1 = never use the IB net");
    /** IB devices. */
    public static final Param IB_HCA = str("NCCL_IB_HCA", null, "IB devices to use: dev[:port] list, ^ excludes, = exact");

    // Execution.
    /** Simple buffer size. */
    public static final Param BUFFSIZE = integer("NCCL_BUFFSIZE", "4194304",
            "Simple protocol buffer bytes per connection (8 steps)");
    /** Channel bounds. */
    public static final Param MIN_NCHANNELS = integer("NCCL_MIN_NCHANNELS", "1", "fewest channels (rings) per communicator");
    /** Channel bounds. */
    public static final Param MAX_NCHANNELS = integer("NCCL_MAX_NCHANNELS", "1",
            "most channels per communicator (host ranks: one worker thread each)");
    /** Progress deadline. */
    public static final Param OP_TIMEOUT_MS = integer("NCCL4J_OP_TIMEOUT_MS", "300000",
            "a collective that sees no progress from a peer for this long fails with TIMEOUT, in milliseconds");

    // Devices.
    /** Device backend. */
    public static final Param DEVICE = str("NCCL4J_DEVICE", null,
            "device backend by name (host, cuda, hip); unset = the first usable by priority");
    /** Pinned host device. */
    public static final Param HOST_DEVICE = integer("NCCL4J_HOST_DEVICE", "-1",
            "host backend: pin this rank's device number (-1 = one per rank, automatically)");

    // Transports.
    /** SHM off. */
    public static final Param SHM_DISABLE = integer("NCCL_SHM_DISABLE", "0",
            "1 = never connect processes of one host through /dev/shm (the network carries it instead)");

    private Params() {
    }

    private static Param str(String name, String def, String meaning) {
        return register(new Param(name, Param.Kind.STRING, def, meaning));
    }

    private static Param integer(String name, String def, String meaning) {
        return register(new Param(name, Param.Kind.INT, def, meaning));
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
