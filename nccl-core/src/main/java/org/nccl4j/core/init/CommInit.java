package org.nccl4j.core.init;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.nccl4j.CommConfig;
import org.nccl4j.Device;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.UniqueId;
import org.nccl4j.core.version.Nccl4jVersion;
import java.lang.foreign.Arena;
import java.util.concurrent.atomic.AtomicReference;
import org.nccl4j.core.bootstrap.Bootstrap;
import org.nccl4j.core.kernel.ChannelPlan;
import org.nccl4j.core.device.DeviceChannel;
import org.nccl4j.core.kernel.Engine;
import org.nccl4j.core.topo.connect.Channel;
import org.nccl4j.core.topo.connect.ChannelTopology;
import org.nccl4j.core.topo.tuning.TuningProfile;
import org.nccl4j.core.kernel.Waiter;
import org.nccl4j.core.proxy.Proxy;
import org.nccl4j.core.conn.BuffSizes;
import org.nccl4j.core.transport.NetTransport;
import org.nccl4j.core.transport.TransportContext;
import org.nccl4j.core.transport.TransportSetup;
import org.nccl4j.core.transport.Transports;
import org.nccl4j.core.bootstrap.BootstrapAuth;
import org.nccl4j.core.bootstrap.BootstrapId;
import org.nccl4j.core.bootstrap.BootstrapRoot;
import org.nccl4j.core.comm.CoreCommunicator;
import org.nccl4j.core.debug.Level;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.DebugLog;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.DeviceCollectives;
import org.nccl4j.core.device.DeviceBackends;
import org.nccl4j.core.device.LocalDevice;
import org.nccl4j.core.host.HostIdentity;
import org.nccl4j.core.net.InitNet;
import org.nccl4j.core.net.GdrProbe;
import org.nccl4j.core.net.NetSelection;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.CommFailure;
import org.nccl4j.core.wait.Deadline;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.peer.RankLayout;
import org.nccl4j.net.spi.auth.ConnectionAuth;

/**
 * {@code ncclCommInitRank} and the AllGather1 part of {@code initTransportsRank}, one Java step
 * per C step: initNet, bootstrap, device, peer info exchange, rank layout, intra-node barrier.
 */
public final class CommInit {
    private CommInit() {
    }

    /**
     * @param config a communicator's parameters
     * @param comm   the communicator's settings
     * @return the init deadline: the config's, else {@code NCCL4J_INIT_TIMEOUT_MS}
     */
    public static Duration initTimeout(Config config, CommConfig comm) {
        if (comm.initTimeout() != null) {
            return comm.initTimeout();
        }
        long ms = config.integer(Params.INIT_TIMEOUT_MS);
        if (ms <= 0) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "NCCL4J_INIT_TIMEOUT_MS=" + ms + " is not positive", null);
        }
        return Duration.ofMillis(ms);
    }

    /**
     * Creates one rank's communicator.
     *
     * @param nranks number of ranks
     * @param id     the unique id
     * @param rank   this rank
     * @param comm   settings
     * @param abort  the abort flag the communicator will own; setting it aborts init
     * @return the communicator
     * @throws NcclException naming the step that failed
     */
    public static CoreCommunicator initRank(int nranks, UniqueId id, int rank, CommConfig comm, AbortFlag abort) {
        long start = System.nanoTime();
        if (nranks < 1) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "nranks " + nranks + " is invalid", "nranks must be at least 1");
        }
        if (rank < 0 || rank >= nranks) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "rank " + rank + " is invalid for nranks " + nranks,
                    "rank must be between 0 and nranks-1");
        }
        Config config = Config.global().with(comm);
        Deadline deadline = Deadline.after(initTimeout(config, comm));
        BootstrapId bid = BootstrapId.decode(id);
        if (rank == 0) {
            printVersion();
        }
        NetSelection net = InitNet.select(config);
        BootstrapRoot root = null;
        Bootstrap bootstrap = null;
        Engine engine = null;
        DeviceCollectives onDevice = null;
        AtomicReference<Proxy> proxy = new AtomicReference<>();
        Arena arena = null;
        try {
            InetAddress local = BootstrapInterface.select(config, bid.fromCommId() ? bid.root() : null).address();
            if (bid.fromCommId() && rank == 0) {
                root = BootstrapRoot.start(bid.root(), bid.nonce(), deadline.total(), BootstrapAuth.of(config));
            }
            bootstrap = Bootstrap.init(bid, rank, nranks, local, deadline, abort, config);
            DeviceBackend backend = DeviceBackends.select(config).backend();
            LocalDevice dev = backend.open(config);

            long commHash = HostIdentity.hash(id.toBytes());
            long hostHash = HostIdentity.hash(bytes(HostIdentity.hostString(config.string(Params.HOSTID)))) + commHash;
            long pidHash = HostIdentity.hash(bytes(HostIdentity.processString())) + commHash;
            boolean gdr = GdrProbe.supported(net, backend, dev, config.integer(Params.CONNECT_TIMEOUT_MS), abort);
            PeerInfo mine = new PeerInfo(rank, dev.index(), gdr, hostHash, pidHash, HostIdentity.shmDevice(),
                    dev.busId(), ProcessHandle.current().pid(), dev.backend(), Nccl4jVersion.VERSION, HostIdentity.hostname(),
                    HostIdentity.numaNode());
            byte[] all = bootstrap.allGather(mine.encode(), deadline);
            List<PeerInfo> peers = new ArrayList<>(nranks);
            for (int r = 0; r < nranks; r++) {
                peers.add(PeerInfo.decode(all, r * PeerInfo.BYTES));
            }
            RankLayout layout = RankLayout.of(peers, rank);
            int devIndex = dev.index() >= 0 ? dev.index() : layout.localRank();
            DebugLog.setThreadDevice(devIndex);
            Log.info(Subsys.INIT, "comm rank %d nranks %d nNodes %d localRanks %d localRank %d device %s:%d busId %s",
                    rank, nranks, layout.nodeCount(), layout.localRanks().length, layout.localRank(), dev.backend(),
                    devIndex, dev.busIdText());

            CommFailure failure = new CommFailure(abort, "rank " + rank);
            arena = Arena.ofShared();
            Connected connected = connect(rank, peers, layout, config, net, bootstrap, abort, arena, proxy, failure,
                    bid.nonce(), deadline, backend, dev);
            engine = connected.engine();
            onDevice = connected.device();

            int[] nodeRanks = layout.localRanks();
            bootstrap.barrier(nodeRanks, (int) peers.get(nodeRanks[0]).pidHash(), deadline);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            Log.info(Subsys.INIT, "comm rank %d nranks %d device %s:%d busId %s - Init COMPLETE (%d ms)",
                    rank, nranks, dev.backend(), devIndex, dev.busIdText(), took.toMillis());
            return new CoreCommunicator(rank, nranks, new Device(dev.backend(), devIndex, dev.busIdText()),
                    net, peers, layout, bootstrap, abort, config, took, engine, onDevice, arena, proxy,
                    failure, comm, CommChildren.INSTANCE);
        } catch (NcclException e) {
            release(net, bootstrap, engine, onDevice, proxy, arena);
            throw e;
        } catch (RuntimeException e) {
            release(net, bootstrap, engine, onDevice, proxy, arena);
            throw NcclException.of(Result.INTERNAL_ERROR, "init of rank " + rank + " failed: " + e, null, e);
        } catch (Error e) {
            release(net, bootstrap, engine, onDevice, proxy, arena);
            throw e;
        } finally {
            if (root != null) {
                root.close();
            }
        }
    }

    /**
     * Starts a bootstrap root here and returns its id ({@code ncclGetUniqueId}); with
     * {@code NCCL_COMM_ID} set, returns the id of that address and starts nothing. The root ends
     * once every rank has its answer, or after the init timeout if no rank checks in.
     *
     * @param config parameters
     * @return the id
     */
    public static UniqueId newUniqueId(Config config) {
        return newRootedId(config).id();
    }

    /** A unique id and the root this process started for it ({@code null} with {@code NCCL_COMM_ID}). */
    public record RootedId(UniqueId id, BootstrapRoot root) {
    }

    /**
     * {@link #newUniqueId} for a caller that closes the root itself when its ranks fail.
     *
     * @param config parameters
     * @return the id and its root
     */
    public static RootedId newRootedId(Config config) {
        return newRootedId(config, BootstrapAuth.of(config));
    }

    /**
     * {@link #newRootedId(Config)} whose root authenticates with {@code auth}.
     *
     * @param config parameters (where the root listens)
     * @param auth   the ranks' authentication, or {@code null}
     * @return the id and its root
     */
    public static RootedId newRootedId(Config config, ConnectionAuth auth) {
        String commId = config.string(Params.COMM_ID);
        if (commId != null) {
            return new RootedId(BootstrapId.fromCommId(commId).toUniqueId(), null);
        }
        InetAddress local = BootstrapInterface.select(config, null).address();
        long nonce = BootstrapId.newNonce();
        BootstrapRoot root = BootstrapRoot.start(new InetSocketAddress(local, 0), nonce,
                initTimeout(config, CommConfig.defaults()), auth);
        return new RootedId(new BootstrapId(root.address(), nonce, false).toUniqueId(), root);
    }

    private static void printVersion() {
        if (Log.get().level().compareTo(Level.VERSION) >= 0) {
            System.out.println("NCCL version " + Nccl4jVersion.NCCL_VERSION + "+nccl4j" + Nccl4jVersion.VERSION);
        }
    }

    private static byte[] bytes(String s) {
        ByteBuffer b = StandardCharsets.UTF_8.encode(s);
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** A failed init's teardown: threads first; memory only once no thread can touch it. */
    private static void release(NetSelection net, Bootstrap bootstrap, Engine engine, DeviceCollectives onDevice,
                                AtomicReference<Proxy> proxy, Arena arena) {
        if (bootstrap != null) {
            bootstrap.abort();
        }
        if (onDevice != null) {
            onDevice.close();
        }
        Proxy p = proxy.get();
        boolean stopped = p == null || p.stop();
        stopped &= engine == null || engine.stop();
        if (stopped) {
            InitNet.release(net);
            if (arena != null) {
                arena.close();
            }
        } else {
            Log.warn("failed init: threads still running; its connection memory and network are kept");
        }
    }

    /** The connected channels: the host engine's, or a device backend's (then {@code engine} is null). */
    private record Connected(Engine engine, DeviceCollectives device) {
    }

    /**
     * Runs the topology part of init ({@link TopologySetup}) and connects the channels it
     * produced: rings and trees ({@code initTransportsRank}'s P2pSetup of the ring and tree
     * graphs), with the tuning model choosing each call's algorithm and protocol. A device
     * backend with kernels of its own connects the rings itself.
     */
    private static Connected connect(int rank, List<PeerInfo> peers, RankLayout layout, Config config,
                                     NetSelection net, Bootstrap bootstrap, AbortFlag abort, Arena arena,
                                     AtomicReference<Proxy> proxy, CommFailure failure,
                                     long commId, Deadline deadline, DeviceBackend backend, LocalDevice dev) {
        BuffSizes buffs = BuffSizes.of(config);
        TuningProfile profile = DeviceProfiles.of(peers);
        if (rank == 0) {
            Log.info(Subsys.TUNING, "Tuning tables %s (device backend %s)", profile.name(), backend.name());
        }
        TopologySetup.Topology topo = TopologySetup.run(config, rank, peers, net, bootstrap, profile,
                DeviceProfiles.channelLimits(config, peers, layout), backend, deadline);
        ChannelTopology channels = topo.channels();
        List<ChannelPlan> plans = new ArrayList<>();
        for (int c = 0; c < channels.nChannels; c++) {
            Channel ch = channels.channel(c);
            int[] down = java.util.Arrays.stream(ch.tree.down).filter(d -> d >= 0).toArray();
            plans.add(new ChannelPlan(c, ch.ring.userRanks, ch.tree.up, down, ch.tree.depth));
        }
        ModelAlgoChooser chooser = new ModelAlgoChooser(topo.model(), config.string(Params.ALGO), false);
        int cores = Runtime.getRuntime().availableProcessors();
        java.util.function.Supplier<Proxy> proxies = () -> {
            synchronized (proxy) {
                if (proxy.get() == null) {
                    proxy.set(new Proxy(rank, abort, e -> failure.fail("NCCLproxy " + rank, e),
                            Waiter.netOversubscribed(layout.localRanks().length, cores)));
                }
                return proxy.get();
            }
        };
        DeviceNetSetup netSetup = new DeviceNetSetup(rank, peers, commId, config, buffs, arena, net, topo.gdr(),
                proxies, abort, bootstrap, deadline);
        DeviceCollectives onDevice = backend.connect(new InitDeviceContext(rank, dev, config,
                plans.stream().map(p -> new DeviceChannel(p.ringUserRanks(), p.treeUp(), p.treeDown())).toList(),
                plans.get(0).treeDepth(), buffs, peers, bootstrap, deadline, abort, failure, chooser,
                topo.transports(), topo.p2pRead(), netSetup));
        if (onDevice != null) {
            return new Connected(null, onDevice);
        }
        TransportContext ctx = new TransportContext(rank, peers, commId, config, buffs, arena, net, proxies, abort);
        TransportSetup transports = new TransportSetup(ctx, Transports.all());
        // Two ranks on one node that reach each other through the net (NCCL_SHM_DISABLE=1, or no
        // shared /dev/shm): recursive doubling's one exchange beats the ring's two network steps
        // up to 64 KiB (ModelAlgoChooser#PAIR_OVER_NET_EXCHANGE_BYTES).
        boolean pairOverNet = peers.size() == 2 && transports.select(1 - rank) instanceof NetTransport;
        Waiter waiter = new Waiter(abort, failure::get, config.integer(Params.OP_TIMEOUT_MS) * 1_000_000L,
                layout.localRanks().length, cores);
        return new Connected(Engine.connect(ctx, transports, bootstrap, plans,
                pairOverNet ? new ModelAlgoChooser(topo.model(), config.string(Params.ALGO), true) : chooser,
                waiter, deadline, config.integer(Params.CONNECT_TIMEOUT_MS), failure), null);
    }
}
