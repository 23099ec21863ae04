package org.nccl4j.core.topo.sim;

import org.nccl4j.core.debug.CFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.topo.connect.ChannelTopology;
import org.nccl4j.core.topo.connect.ConnectPrinter;
import org.nccl4j.core.topo.connect.RankConnectInfo;
import org.nccl4j.core.topo.connect.TopoConnect;
import org.nccl4j.core.topo.paths.P2pChannels;
import org.nccl4j.core.topo.paths.PathComputer;
import org.nccl4j.core.topo.paths.PathPolicy;
import org.nccl4j.core.topo.paths.TopoPeer;
import org.nccl4j.core.topo.search.GraphPrinter;
import org.nccl4j.core.topo.search.GraphSearch;
import org.nccl4j.core.topo.search.TopoGraph;
import org.nccl4j.core.topo.system.LinkType;
import org.nccl4j.core.topo.system.NodeType;
import org.nccl4j.core.topo.system.PathType;
import org.nccl4j.core.topo.system.TopoLink;
import org.nccl4j.core.topo.system.TopoNode;
import org.nccl4j.core.topo.system.TopoPath;
import org.nccl4j.core.topo.system.TopoSystem;
import org.nccl4j.core.topo.system.TopoSystemBuilder;
import org.nccl4j.core.topo.tuning.CpuType;
import org.nccl4j.core.topo.tuning.TuningContext;
import org.nccl4j.core.topo.tuning.TuningModel;
import org.nccl4j.core.topo.tuning.TuningPrinter;
import org.nccl4j.core.topo.tuning.TuningProfile;
import org.nccl4j.core.topo.xml.CNum;
import org.nccl4j.core.topo.xml.XmlReader;

/**
 * Replays the topology part of {@code initTransportsRank()} for every rank of an N-node job built
 * from one topology XML, without GPUs, and prints what NCCL v2.10.3's graph code computes in the
 * line formats of the reference outputs ({@code SIM}, {@code SYSTEM}, {@code LINK}, {@code PATH},
 * {@code GRAPH}/{@code GCH}, then through {@code org.nccl4j.core.topo.connect} and {@code .tuning}
 * {@code RANK}/{@code RCH}/{@code RING}, {@code P2P}, {@code TUNE} and {@code TIME}).
 */
public final class TopoSimulator {
    /**
     * What one simulated rank computed.
     *
     * @param rank        the rank
     * @param system      its system after trimming
     * @param localRanks  GPUs left after trimming
     * @param ring        its ring graph
     * @param tree        its tree graph
     * @param collNet     its CollNet graph
     * @param searchNanos time spent in paths, trim and the three searches (without the searches for
     *                    ranks that reused their node's graphs, see {@link SearchMode#ONCE_PER_NODE})
     * @param channels    its connection plan after Postset: {@code nChannels}, then per channel the
     *                    ring's prev/next and the tree's up/down
     * @param rings       Postset's rings ({@code rings[c * nRanks + i]}, the order of the {@code RING} lines)
     */
    public record RankState(int rank, TopoSystem system, int localRanks, TopoGraph ring, TopoGraph tree, TopoGraph collNet,
                            long searchNanos, ChannelTopology channels, int[] rings) {
    }

    /** How many ranks run the three graph searches. */
    public enum SearchMode {
        /** Every rank searches its own system, as NCCL does (the timings mean something). */
        EVERY_RANK,
        /**
         * The first rank of each node searches; the node's other ranks whose trimmed system
         * keeps the same GPUs and NETs take copies of its graphs. Same output: those ranks load
         * the same bytes with the same rank shift and compute paths from the same peers, and the
         * search is a deterministic function of the system, the request and the configuration.
         * Their {@code searchNanos} then only counts paths and trim.
         */
        ONCE_PER_NODE
    }

    /** Step 2's result for one rank, before connection. */
    private record Searched(int rank, TopoSystem system, int localRanks, TopoGraph ring, TopoGraph tree, TopoGraph collNet,
                            long searchNanos) {
    }

    private TopoSimulator() {
    }

    /**
     * Runs the simulation and prints its lines.
     *
     * @param xml    a topology file, NCCL's ({@code version="1"}) or RCCL's ({@code version="2"}) dialect
     * @param nNodes the number of nodes
     * @param env    the {@code NCCL_*} variables of the run (the only configuration source)
     * @param out    where the lines go
     * @return every rank's state, in rank order
     */
    public static List<RankState> run(Path xml, int nNodes, Map<String, String> env, Appendable out) {
        return run(xml, nNodes, env, out, SearchMode.EVERY_RANK);
    }

    /**
     * Runs the simulation and prints its lines.
     *
     * @param xml    a topology file, NCCL's ({@code version="1"}) or RCCL's ({@code version="2"}) dialect
     * @param nNodes the number of nodes
     * @param env    the {@code NCCL_*} variables of the run (the only configuration source)
     * @param out    where the lines go
     * @param mode   whether every rank searches, or one per node and identical system
     * @return every rank's state, in rank order
     */
    public static List<RankState> run(Path xml, int nNodes, Map<String, String> env, Appendable out, SearchMode mode) {
        return run(xml, nNodes, env, out, mode, TuningProfile.NCCL_GPU);
    }

    /**
     * Runs the simulation with the given tuning tables and prints its lines.
     *
     * @param xml     a topology file, NCCL's ({@code version="1"}) or RCCL's ({@code version="2"}) dialect
     * @param nNodes  the number of nodes
     * @param env     the {@code NCCL_*} variables of the run (the only configuration source)
     * @param out     where the lines go
     * @param mode    whether every rank searches, or one per node and identical system
     * @param profile the tuning tables (NCCL's GPU figures for the reference outputs)
     * @return every rank's state, in rank order
     */
    public static List<RankState> run(Path xml, int nNodes, Map<String, String> env, Appendable out, SearchMode mode,
                                      TuningProfile profile) {
        Map<String, String> vars = new HashMap<>(env);
        // Channel bounds are inputs: unless the run sets them, NCCL's "unset" (-2: 0 and 32 channels).
        vars.putIfAbsent("NCCL_MIN_NCHANNELS", "-2");
        vars.putIfAbsent("NCCL_MAX_NCHANNELS", "-2");
        Config config = Config.of(new Properties(), vars, Path.of("/nonexistent/nccl.conf"));
        PathPolicy policy = PathPolicy.from(config);
        byte[] content;
        try {
            content = Files.readAllBytes(xml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // Step 1: one system per rank, ranks shifted by node, and the peer infos.
        int gpusPerNode = load(content, 0, 0).count(NodeType.GPU);
        int nRanks = gpusPerNode * nNodes;
        TopoSystem[] systems = new TopoSystem[nRanks];
        TopoPeer[] peers = new TopoPeer[nRanks];
        for (int r = 0; r < nRanks; r++) {
            int node = r / gpusPerNode;
            systems[r] = load(content, node, gpusPerNode);
            for (TopoNode gpu : systems[r].nodes(NodeType.GPU)) {
                if (gpu.rank == r) {
                    peers[r] = new TopoPeer(r, gpu.dev, gpu.gdrSupport != 0, 0x1000 + node, 0x2000 + node, 1, gpu.id);
                }
            }
        }
        print(out, "SIM file=" + xml.getFileName() + " nNodes=" + nNodes + " gpusPerNode=" + gpusPerNode + " nRanks=" + nRanks);

        // Step 2: paths, trim, search.
        int crossNic = (int) config.integer(Params.CROSS_NIC);
        List<Searched> searched = new ArrayList<>();
        Map<String, Searched> byNodeSystem = new HashMap<>();
        for (int r = 0; r < nRanks; r++) {
            long t0 = System.nanoTime();
            TopoSystem system = systems[r];
            PathComputer.computePaths(system, peers, policy);
            int localRanks = PathComputer.trimSystem(system, r, nRanks);
            PathComputer.computePaths(system, peers, policy);
            GraphSearch.searchInit(system);
            if (r == 0) {
                printSystem(out, system);
            }
            String key = (r / gpusPerNode) + "/" + keptDevices(system);
            Searched same = mode == SearchMode.ONCE_PER_NODE ? byNodeSystem.get(key) : null;
            TopoGraph ring;
            TopoGraph tree;
            TopoGraph collNet;
            if (same != null) {
                ring = copy(same.ring());
                tree = copy(same.tree());
                collNet = copy(same.collNet());
            } else {
                ring = TopoGraph.request(0, TopoGraph.PATTERN_RING, crossNic, 0, 1, TopoGraph.MAXCHANNELS / 2);
                GraphSearch.compute(system, ring, config);
                tree = TopoGraph.request(1, TopoGraph.PATTERN_BALANCED_TREE, crossNic, 0, 1, ring.nChannels);
                GraphSearch.compute(system, tree, config);
                collNet = TopoGraph.request(2, TopoGraph.PATTERN_TREE, crossNic, 1, ring.nChannels, ring.nChannels);
                GraphSearch.compute(system, collNet, config);
            }
            long t1 = System.nanoTime();
            if (r == 0) {
                printGraph(out, system, "RING", ring);
                printGraph(out, system, "TREE", tree);
                printGraph(out, system, "COLLNET", collNet);
            }
            Searched mine = new Searched(r, system, localRanks, ring, tree, collNet, t1 - t0);
            searched.add(mine);
            byNodeSystem.putIfAbsent(key, mine);
        }

        // Step 2 (end): collNetSupport = 0, graph info, nChannels = min(tree, ring), Preset.
        ChannelTopology[] comms = new ChannelTopology[nRanks];
        RankConnectInfo[] all = new RankConnectInfo[nRanks];
        int minCompCap = Integer.MAX_VALUE;
        int maxCompCap = Integer.MIN_VALUE;
        for (Searched s : searched) {
            comms[s.rank()] = new ChannelTopology(s.rank(), nRanks, s.localRanks());
            comms[s.rank()].collNetSupport = 0;
            all[s.rank()] = TopoConnect.preset(comms[s.rank()], s.tree(), s.ring(), s.collNet());
            int[] cc = s.system().compCap();
            minCompCap = Math.min(minCompCap, cc[0]);
            maxCompCap = Math.max(maxCompCap, cc[1]);
        }
        // Step 3: node detection, alignment, Postset; rank 0 also prints P2P and the tuning model.
        List<RankState> states = new ArrayList<>();
        for (Searched s : searched) {
            ChannelTopology comm = comms[s.rank()];
            int[] rings = TopoConnect.postset(comm, all, s.tree(), s.ring(), s.collNet(), config);
            states.add(new RankState(s.rank(), s.system(), s.localRanks(), s.ring(), s.tree(), s.collNet(), s.searchNanos(),
                    comm, rings));
            for (String l : ConnectPrinter.lines(comm, rings, s.rank() == 0)) {
                print(out, l);
            }
            if (s.rank() != 0) {
                continue;
            }
            int[] cpu = s.system().cpuType();
            TuningContext ctx = new TuningContext(s.rank(), nRanks, comm.nNodes, comm.nChannels, comm.collNetSupport,
                    comm.channel(0).collTree.nHeads, minCompCap, maxCompCap, new CpuType(cpu[0], cpu[1], cpu[2]));
            TuningModel model = TuningModel.compute(ctx, s.tree(), s.ring(), s.collNet(), profile, config);
            P2pChannels p2p = P2pChannels.compute(s.system(), comm.nChannels, nRanks,
                    (int) config.integer(Params.MIN_P2P_NCHANNELS), (int) config.integer(Params.MAX_P2P_NCHANNELS));
            StringBuilder line = new StringBuilder("P2P p2pnChannels=" + p2p.p2pnChannels() + " p2pnChannelsPerPeer="
                    + p2p.p2pnChannelsPerPeer() + " p2pChannels:");
            for (int c : p2p.p2pChannels()) {
                line.append(' ').append(c);
            }
            print(out, line.toString());
            for (String l : TuningPrinter.tuneLines(model)) {
                print(out, l);
            }
            for (String l : TuningPrinter.timeLines(model, TuningPrinter.TIME_SIZES)) {
                print(out, l);
            }
        }
        return states;
    }

    private static TopoSystem load(byte[] content, int node, int gpusPerNode) {
        // NCCL_TOPO_FILE's reading: the <system> version picks NCCL's or RCCL's dialect.
        TopoSystem s = TopoSystemBuilder.build(XmlReader.readTopology(content));
        for (TopoNode gpu : s.nodes(NodeType.GPU)) {
            gpu.rank += node * gpusPerNode;
        }
        return s;
    }

    /** The GPUs (by rank) and NETs (by id) a trimmed system kept: what can differ between a node's ranks. */
    private static String keptDevices(TopoSystem s) {
        StringBuilder sb = new StringBuilder();
        for (TopoNode gpu : s.nodes(NodeType.GPU)) {
            sb.append(gpu.rank).append(',');
        }
        sb.append('/');
        for (TopoNode net : s.nodes(NodeType.NET)) {
            sb.append(Long.toHexString(net.id)).append(',');
        }
        return sb.toString();
    }

    /** A rank's own copy: connection reads and aligns each rank's graphs in place. */
    private static TopoGraph copy(TopoGraph g) {
        TopoGraph c = new TopoGraph();
        c.copyFrom(g);
        return c;
    }


    private static String name(TopoNode n) {
        return NodeType.str(n.type) + "/" + Long.toHexString(n.id);
    }

    private static void printSystem(Appendable out, TopoSystem s) {
        print(out, "SYSTEM maxWidth=" + CFormat.g(s.maxWidth) + " totalWidth=" + CFormat.g(s.totalWidth));
        for (int t = 0; t < NodeType.NET + 1; t++) {
            for (TopoNode n : s.nodes(t)) {
                for (TopoLink l : n.links) {
                    print(out, "LINK " + name(n) + " -> " + LinkType.str(l.type) + " " + CFormat.g(l.width) + " " + name(l.remNode));
                }
            }
        }
        for (int from : new int[] {NodeType.GPU, NodeType.NET}) {
            for (TopoNode n : s.nodes(from)) {
                for (int to : new int[] {NodeType.GPU, NodeType.CPU, NodeType.NET}) {
                    for (int i = 0; i < s.count(to); i++) {
                        TopoPath p = n.paths[to][i];
                        print(out, "PATH " + name(n) + " -> " + name(s.node(to, i)) + " count=" + p.count + " width="
                                + CFormat.g(p.width) + " type=" + PathType.str(p.type));
                    }
                }
            }
        }
    }

    private static void printGraph(Appendable out, TopoSystem s, String name, TopoGraph g) {
        print(out, "GRAPH rank=0 name=" + name + " pattern=" + g.pattern + " nChannels=" + g.nChannels + " speedIntra="
                + CFormat.g(g.speedIntra) + " speedInter=" + CFormat.g(g.speedInter) + " typeIntra="
                + PathType.str(g.typeIntra) + " typeInter=" + PathType.str(g.typeInter) + " sameChannels=" + g.sameChannels
                + " crossNic=" + g.crossNic);
        for (int c = 0; c < g.nChannels; c++) {
            print(out, "  GCH " + GraphPrinter.channelLine(s, g, c));
        }
    }

    private static void print(Appendable out, String line) {
        try {
            out.append(line).append('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
