package org.nccl4j.core.init;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.bootstrap.Bootstrap;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.DeviceTransport;
import org.nccl4j.core.net.NetSelection;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.topo.connect.ChannelLimits;
import org.nccl4j.core.topo.connect.ChannelTopology;
import org.nccl4j.core.topo.connect.RankConnectInfo;
import org.nccl4j.core.topo.connect.TopoConnect;
import org.nccl4j.core.topo.detection.DetectedRank;
import org.nccl4j.core.topo.detection.TopoDetector;
import org.nccl4j.core.topo.paths.P2pChannels;
import org.nccl4j.core.topo.paths.PathComputer;
import org.nccl4j.core.topo.paths.PathPolicy;
import org.nccl4j.core.topo.paths.TopoPeer;
import org.nccl4j.core.topo.search.GraphPrinter;
import org.nccl4j.core.topo.search.GraphSearch;
import org.nccl4j.core.topo.search.GraphXml;
import org.nccl4j.core.topo.search.TopoGraph;
import org.nccl4j.core.topo.system.NodeType;
import org.nccl4j.core.topo.system.TopoPrinter;
import org.nccl4j.core.topo.system.TopoSystem;
import org.nccl4j.core.topo.system.TopoSystemBuilder;
import org.nccl4j.core.transport.NetGdr;
import org.nccl4j.core.topo.tuning.CpuType;
import org.nccl4j.core.topo.tuning.TuningContext;
import org.nccl4j.core.topo.tuning.TuningModel;
import org.nccl4j.core.topo.tuning.TuningProfile;
import org.nccl4j.core.topo.xml.TopoXml;
import org.nccl4j.core.wait.Deadline;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetProperties;
import org.nccl4j.core.peer.PeerInfo;

/**
 * The topology part of {@code initTransportsRank} (NCCL v2.10.3), in NCCL's order: detect the
 * system, compute paths, trim, search the ring, tree and CollNet graphs, Preset, the third
 * all-gather, Postset (node detection, alignment, inter-node rings and double binary trees),
 * the tuning model and the p2p channels.
 */
public final class TopologySetup {
    private TopologySetup() {
    }

    /**
     * What the communicator takes from the topology.
     *
     * @param system   this rank's system after trimming
     * @param ring     the aligned ring graph
     * @param tree     the aligned tree graph
     * @param channels per-channel rings and trees ({@code channels.nChannels} of them)
     * @param rings    {@code rings[c * nRanks + i]}
     * @param model    the tuning model
     * @param p2p      the p2p channels
     * @param transports how this rank reaches each rank, by rank (its own: P2P)
     * @param p2pRead    by rank: P2P in read mode (the receiver reads the Simple FIFO from the sender's memory)
     * @param gdr        where this rank's NET connections use GPU Direct RDMA
     */
    public record Topology(TopoSystem system, TopoGraph ring, TopoGraph tree, ChannelTopology channels, int[] rings,
                         TuningModel model, P2pChannels p2p, DeviceTransport[] transports, boolean[] p2pRead,
                         NetGdr gdr) {
    }

    /**
     * @param config    parameters
     * @param rank      this rank
     * @param peers     AllGather1's peer infos
     * @param net       the selected network
     * @param bootstrap for the third all-gather
     * @param profile   the tuning tables of this communicator's devices
     * @param limits    the channel bounds Postset applies
     * @param backend   this process's device backend (it describes its GPUs to detection)
     * @param deadline  init deadline
     * @return the topology
     */
    public static Topology run(Config config, int rank, List<PeerInfo> peers, NetSelection net, Bootstrap bootstrap,
                               TuningProfile profile, ChannelLimits limits, DeviceBackend backend, Deadline deadline) {
        int nRanks = peers.size();
        int[] devices = devices(peers);
        List<DetectedRank> detected = new ArrayList<>(nRanks);
        TopoPeer[] topoPeers = new TopoPeer[nRanks];
        for (PeerInfo p : peers) {
            detected.add(new DetectedRank(p.rank(), p.hostHash(), p.busId(), p.backend(), devices[p.rank()], p.numaNode(),
                    p.gdrSupport()));
            topoPeers[p.rank()] = new TopoPeer(p.rank(), devices[p.rank()], p.gdrSupport(), p.hostHash(), p.pidHash(),
                    p.shmDev(), p.busId());
        }
        TopoXml xml = TopoDetector.forHost().detect(config, rank, detected, netDevices(net), backend);
        TopoSystem system = TopoSystemBuilder.build(xml);
        PathPolicy policy = PathPolicy.from(config);
        PathComputer.computePaths(system, topoPeers, policy);
        // Before trimming, which drops the NETs when every rank is on this node: NET connections
        // between them (P2P and SHM disabled) still need the decision.
        NetGdr gdr = gdr(system, topoPeers[rank], policy);
        int localRanks = PathComputer.trimSystem(system, rank, nRanks);
        PathComputer.computePaths(system, topoPeers, policy);
        DeviceTransport[] transports = transports(system, topoPeers, rank, policy);
        boolean[] p2pRead = p2pRead(system, topoPeers, rank, policy, transports, config.integer(Params.P2P_READ_ENABLE));
        GraphSearch.searchInit(system);
        TopoPrinter.print(system);

        int crossNic = (int) config.integer(Params.CROSS_NIC);
        TopoGraph ring = TopoGraph.request(0, TopoGraph.PATTERN_RING, crossNic, 0, 1, TopoGraph.MAXCHANNELS / 2);
        GraphSearch.compute(system, ring, config);
        GraphPrinter.print(system, ring);
        TopoGraph tree = TopoGraph.request(1, TopoGraph.PATTERN_BALANCED_TREE, crossNic, 0, 1, ring.nChannels);
        GraphSearch.compute(system, tree, config);
        GraphPrinter.print(system, tree);
        TopoGraph collNet = TopoGraph.request(2, TopoGraph.PATTERN_TREE, crossNic, 1, ring.nChannels, ring.nChannels);
        GraphSearch.compute(system, collNet, config);
        GraphPrinter.print(system, collNet);
        if (rank == config.integer(Params.GRAPH_DUMP_FILE_RANK)) {
            GraphXml.dump(config, system, List.of(ring, tree, collNet));
        }

        ChannelTopology channels = new ChannelTopology(rank, nRanks, localRanks);
        channels.collNetSupport = 0;
        RankConnectInfo mine = TopoConnect.preset(channels, tree, ring, collNet);
        // The channel bounds travel too: a host rank's depend on its host (cores per local rank),
        // and every rank must keep the same channels or their connections do not pair up.
        byte[] gathered = bootstrap.allGather(ConnectInfoCodec.encode(mine, limits), deadline);
        RankConnectInfo[] all = new RankConnectInfo[nRanks];
        ChannelLimits agreed = limits;
        for (int r = 0; r < nRanks; r++) {
            all[r] = ConnectInfoCodec.decode(gathered, r * ConnectInfoCodec.BYTES);
            agreed = agreed.lowest(ConnectInfoCodec.limits(gathered, r * ConnectInfoCodec.BYTES));
        }
        int[] rings = TopoConnect.postset(channels, all, tree, ring, collNet,
                (int) config.integer(Params.COLLNET_NODE_THRESHOLD), agreed);
        if (channels.nChannels < 1) {
            throw NcclException.of(Result.INTERNAL_ERROR, "the topology search found no channel for rank " + rank,
                    "run 'nccl4j topo show' and NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=GRAPH to see the topology");
        }

        int[] cpu = system.cpuType();
        int[] cc = system.compCap();
        TuningContext ctx = new TuningContext(rank, nRanks, channels.nNodes, channels.nChannels, channels.collNetSupport,
                channels.channel(0).collTree.nHeads, cc[0], cc[1], new CpuType(cpu[0], cpu[1], cpu[2]));
        TuningModel model = TuningModel.compute(ctx, tree, ring, collNet, profile, config);
        P2pChannels p2p = P2pChannels.compute(system, channels.nChannels, nRanks,
                (int) config.integer(Params.MIN_P2P_NCHANNELS), (int) config.integer(Params.MAX_P2P_NCHANNELS));
        Log.info(Subsys.INIT, "%d coll channels, %d p2p channels, %d p2p channels per peer", channels.nChannels,
                p2p.p2pnChannels(), p2p.p2pnChannelsPerPeer());
        return new Topology(system, ring, tree, channels, rings, model, p2p, transports, p2pRead, gdr);
    }

    /** NCCL's {@code ncclTopoCheckGdr} for each network device, as the sending and the receiving end. */
    private static NetGdr gdr(TopoSystem system, TopoPeer me, PathPolicy policy) {
        int devs = system.count(NodeType.NET);
        if (devs == 0 || system.idToIndex(NodeType.GPU, me.busId()) < 0) {
            return NetGdr.NONE;
        }
        boolean[] send = new boolean[devs];
        boolean[] recv = new boolean[devs];
        for (int d = 0; d < devs; d++) {
            send[d] = PathComputer.checkGdr(system, me.busId(), d, true, policy);
            recv[d] = PathComputer.checkGdr(system, me.busId(), d, false, policy);
        }
        return new NetGdr(send, recv);
    }

    /**
     * NCCL's {@code p2pGetInfo}: P2P reads on NVLink between SM80 GPUs ({@code ncclTopoCheckP2p}),
     * unless {@code NCCL_P2P_READ_ENABLE} says otherwise; other transports never read.
     */
    private static boolean[] p2pRead(TopoSystem system, TopoPeer[] peers, int rank, PathPolicy policy,
                                     DeviceTransport[] transports, long readEnable) {
        boolean[] read = new boolean[peers.length];
        for (int q = 0; q < peers.length; q++) {
            if (q != rank && transports[q] == DeviceTransport.P2P) {
                read[q] = readEnable != -2 ? readEnable != 0
                        : PathComputer.checkP2p(system, peers[rank].busId(), peers[q].busId(), policy).read();
            }
        }
        return read;
    }

    /** NCCL's {@code selectTransport} for each pair this rank is in: p2p, else shm, else net. */
    private static DeviceTransport[] transports(TopoSystem system, TopoPeer[] peers, int rank, PathPolicy policy) {
        DeviceTransport[] t = new DeviceTransport[peers.length];
        for (int q = 0; q < peers.length; q++) {
            if (q == rank || PathComputer.p2pCanConnect(system, peers[rank], peers[q], policy)) {
                t[q] = DeviceTransport.P2P;
            } else {
                t[q] = PathComputer.shmCanConnect(peers[rank], peers[q], policy) ? DeviceTransport.SHM
                        : DeviceTransport.NET;
            }
        }
        return t;
    }

    /**
     * Each rank's device number: its own when its backend numbers devices, else (host ranks) its
     * position among the ranks of its host.
     */
    private static int[] devices(List<PeerInfo> peers) {
        int[] out = new int[peers.size()];
        Map<Long, Integer> seen = new HashMap<>();
        for (PeerInfo p : peers) {
            int index = seen.merge(p.hostHash(), 1, Integer::sum) - 1;
            out[p.rank()] = p.device() >= 0 ? p.device() : index;
        }
        return out;
    }

    private static List<NetProperties> netDevices(NetSelection net) {
        List<NetProperties> out = new ArrayList<>();
        for (int d = 0; d < net.devices(); d++) {
            try {
                out.add(net.net().getProperties(d));
            } catch (NetException e) {
                throw NcclException.of(Result.SYSTEM_ERROR, "network " + net.net().name() + " device " + d
                        + ": getProperties failed: " + e.getMessage(), null, e);
            }
        }
        return out;
    }

}
