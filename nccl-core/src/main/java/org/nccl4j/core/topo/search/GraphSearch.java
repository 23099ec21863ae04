package org.nccl4j.core.topo.search;

import java.nio.file.Path;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.topo.system.Cpu;
import org.nccl4j.core.topo.system.LinkType;
import org.nccl4j.core.topo.system.NodeType;
import org.nccl4j.core.topo.system.PathType;
import org.nccl4j.core.topo.system.TopoLink;
import org.nccl4j.core.topo.system.TopoNode;
import org.nccl4j.core.topo.system.TopoPath;
import org.nccl4j.core.topo.system.TopoSystem;
import org.nccl4j.core.topo.system.Widths;
import org.nccl4j.core.topo.xml.CNum;
import org.nccl4j.core.topo.xml.XmlReader;

/**
 * {@code search.cc}: finds the channels of a ring, tree or CollNet graph ({@code ncclTopoCompute}).
 *
 * <p>The search is a depth-first walk over GPU orders that debits link bandwidth as it goes and
 * restores it on backtrack, bounded by step budgets, then relaxed step by step (different
 * channels, worse path types, cross-NIC, lower speeds) until a solution is found; a second pass
 * tries to raise the intra-node speed of trees. Every float operation, {@code (int)} truncation,
 * iteration order and budget is NCCL's, so results are identical. The inner loop allocates
 * nothing: candidate orders live in per-depth scratch arrays.
 */
public final class GraphSearch {
    /** v2.10.3 {@code speedArrayIntra}. */
    static final float[] SPEED_INTRA = {44.0f, 30.0f, 22.0f, 18.0f, 15.0f, 12.0f, 10.0f, 9.0f, 7.0f, 6.0f, 5.0f, 4.0f, 3.0f};
    /** v2.10.3 {@code speedArrayInter}. */
    static final float[] SPEED_INTER = {48.0f, 30.0f, 24.0f, 22.0f, 18.0f, 15.0f, 12.0f, 10.0f, 9.0f, 7.0f, 6.0f, 5.0f, 4.0f,
        3.0f, 2.4f, 1.2f, 0.24f, 0.12f};
    private static final long GLOBAL_TIMEOUT = 3L << 19;
    private static final int TIMEOUT = 1 << 18;
    private static final int TIMEOUT_TREE = 1 << 17;
    private static final int TIMEOUT_SAMECHANNELS = 1 << 10;
    private static final int FORCED_ORDER_PCI = 1;
    private static final int FORCED_ORDER_REPLAY = 2;

    private final TopoSystem system;
    private final TopoNode[] gpus;
    private final TopoNode[] nets;
    private final int ngpus;
    private TopoGraph graph;
    private TopoGraph saveGraph;
    /** Candidate GPU orders, one array per (channel, step). */
    private final int[][] nextScratch;
    /** Candidate NET orders, one array per channel. */
    private final int[][] netScratch;
    private final float[] netMaxWidths;
    private final int[] netMinHops;
    private final int[] scoreG;
    private final int[] scoreStart;
    private final int[] scoreIntraHops;
    private final int[] scoreIntraWidth;
    private final int[] scoreInterHops;
    private final int[] scoreInterPciWidth;
    private final int[] scoreInterWidth;

    private GraphSearch(TopoSystem system) {
        this.system = system;
        this.gpus = system.nodes(NodeType.GPU).toArray(new TopoNode[0]);
        this.nets = system.nodes(NodeType.NET).toArray(new TopoNode[0]);
        this.ngpus = gpus.length;
        this.nextScratch = new int[(TopoGraph.MAXCHANNELS + 1) * Math.max(1, ngpus)][Math.max(1, ngpus)];
        this.netScratch = new int[TopoGraph.MAXCHANNELS + 1][nets.length];
        this.netMaxWidths = new float[nets.length];
        this.netMinHops = new int[nets.length];
        this.scoreG = new int[ngpus];
        this.scoreStart = new int[ngpus];
        this.scoreIntraHops = new int[ngpus];
        this.scoreIntraWidth = new int[ngpus];
        this.scoreInterHops = new int[ngpus];
        this.scoreInterPciWidth = new int[ngpus];
        this.scoreInterWidth = new int[ngpus];
    }

    /**
     * {@code ncclTopoSearchInit}: sets {@code maxWidth} (best per-channel path width from a GPU to
     * the NETs, or to the other GPUs without NETs) and {@code totalWidth} (most NVLink or PCI
     * width of one GPU).
     *
     * @param system the system, paths computed
     */
    public static void searchInit(TopoSystem system) {
        system.maxWidth = 0f;
        system.totalWidth = 0f;
        int inter = system.count(NodeType.NET);
        if (inter == 0 && system.count(NodeType.GPU) == 1) {
            system.maxWidth = Widths.LOC;
            return;
        }
        for (TopoNode gpu : system.nodes(NodeType.GPU)) {
            int type = inter != 0 ? NodeType.NET : NodeType.GPU;
            float max = 0f;
            for (int i = 0; i < system.count(type); i++) {
                TopoPath p = gpu.paths[type][i];
                if (p.count != 0) {
                    max = Math.max(max, p.width);
                }
            }
            system.maxWidth = Math.max(system.maxWidth, max);
            float nvl = 0f;
            float pci = 0f;
            for (TopoLink l : gpu.links) {
                if (l.type == LinkType.NVL) {
                    nvl += l.width;
                }
                if (l.type == LinkType.PCI) {
                    pci = l.width;
                }
            }
            system.totalWidth = Math.max(system.totalWidth, Math.max(pci, nvl));
        }
    }

    /**
     * {@code ncclTopoCompute} with {@code NCCL_GRAPH_FILE} read from the configuration.
     *
     * @param system the system (paths computed, {@link #searchInit} done)
     * @param graph  request fields set (id, pattern, crossNic, collNet, min/maxChannels); receives the result
     * @param config the configuration
     */
    public static void compute(TopoSystem system, TopoGraph graph, Config config) {
        String file = config.string(Params.GRAPH_FILE);
        compute(system, graph, file == null || file.isEmpty() ? null : Path.of(file));
    }

    /**
     * {@code ncclTopoCompute}.
     *
     * @param system    the system (paths computed, {@link #searchInit} done)
     * @param graph     request fields set; receives the result
     * @param graphFile an {@code NCCL_GRAPH_FILE} to load instead of searching, or {@code null}
     */
    public static void compute(TopoSystem system, TopoGraph graph, Path graphFile) {
        new GraphSearch(system).run(graph, graphFile);
    }

    private void run(TopoGraph out, Path graphFile) {
        int nnets = nets.length;
        int crossNic = (nnets > 1) && out.crossNic != 0 ? 1 : 0;
        out.speedIntra = out.speedInter = 0;
        if (out.crossNic == 2) {
            out.crossNic = 0;
        }
        out.typeIntra = ngpus == 1 ? PathType.LOC : PathType.NVL;
        out.typeInter = PathType.PIX;
        out.nChannels = 0;
        out.sameChannels = 1;

        if (graphFile != null) {
            Log.info(Subsys.ENV, "NCCL_GRAPH_FILE set by environment to %s", graphFile);
            int loaded = GraphXml.load(XmlReader.readGraphs(graphFile), system, out);
            Log.info(Subsys.GRAPH, "Search %d : %d channels loaded from XML graph", out.id, loaded);
            if (out.nChannels > 0) {
                return;
            }
        }
        if (ngpus == 1 && out.pattern != TopoGraph.PATTERN_RING) {
            out.pattern = TopoGraph.PATTERN_TREE;
        }
        system.compCap(); // NCCL fails here without GPUs

        TopoGraph tmp = new TopoGraph();
        tmp.copyFrom(out);
        float[] speeds = nnets == 0 ? SPEED_INTRA : SPEED_INTER;
        int nspeeds = speeds.length;
        int pass = 1;
        int speedIndex = 0;
        while (speeds[speedIndex] > system.maxWidth && speedIndex < nspeeds - 1) {
            speedIndex++;
        }
        tmp.speedIntra = tmp.speedInter = speeds[speedIndex];
        long globalTimeout = GLOBAL_TIMEOUT;
        this.graph = tmp;
        this.saveGraph = out;
        int[] time = new int[1];

        while (true) {
            time[0] = tmp.sameChannels != 0 ? TIMEOUT_SAMECHANNELS
                    : tmp.pattern == TopoGraph.PATTERN_TREE ? TIMEOUT_TREE : TIMEOUT;
            tmp.nChannels = 0;
            globalTimeout -= time[0];
            searchRec(time);

            boolean done = time[0] == -1 || out.nChannels * out.speedInter >= system.totalWidth;
            if (!done && pass == 1) {
                if (tmp.sameChannels == 1) {
                    tmp.sameChannels = 0;
                    continue;
                }
                tmp.sameChannels = 1;
                if (time[0] != -1) {
                    globalTimeout += time[0];
                } else {
                    globalTimeout = GLOBAL_TIMEOUT;
                }
                if (!(globalTimeout < 0 && out.nChannels != 0)) {
                    int maxTypeIntra = nnets > 0 ? tmp.typeInter : PathType.SYS;
                    if (tmp.typeIntra < maxTypeIntra && (out.nChannels == 0 || tmp.typeIntra < out.typeIntra)) {
                        tmp.typeIntra += 1;
                        continue;
                    }
                    tmp.typeIntra = ngpus == 1 ? PathType.LOC : PathType.NVL;
                    if (nnets > 0 && tmp.typeInter < PathType.SYS
                            && (out.nChannels == 0 || tmp.typeInter < out.typeInter || tmp.typeInter < PathType.PXB)) {
                        tmp.typeInter += 1;
                        continue;
                    }
                    tmp.typeInter = PathType.PIX;
                    if (tmp.pattern == TopoGraph.PATTERN_SPLIT_TREE) {
                        tmp.pattern = TopoGraph.PATTERN_TREE;
                        continue;
                    }
                    tmp.pattern = out.pattern;
                    if (crossNic != 0 && tmp.crossNic == 0) {
                        tmp.crossNic = crossNic;
                        continue;
                    }
                    tmp.crossNic = 0;
                    if (speedIndex < nspeeds - 1 && (out.nChannels == 0 || speeds[speedIndex + 1] / out.speedInter > .49)) {
                        tmp.speedInter = tmp.speedIntra = speeds[++speedIndex];
                        continue;
                    }
                    speedIndex = 0;
                    while (speeds[speedIndex] > system.maxWidth && speedIndex < nspeeds - 1) {
                        speedIndex++;
                    }
                    tmp.speedIntra = tmp.speedInter = speeds[speedIndex];
                }
            }
            // done: move to pass 2 from the solution found.
            if (pass == 1) {
                time[0] = -1;
                tmp.copyFrom(out);
                speedIndex = 0;
                while (speeds[speedIndex] > out.speedInter && speedIndex < nspeeds - 1) {
                    speedIndex++;
                }
                tmp.speedIntra = tmp.speedInter = speeds[speedIndex];
                tmp.minChannels = out.nChannels;
                pass = 2;
            }
            // Pass 2: try a higher intra-node speed for trees.
            if (time[0] != 0 && out.pattern != TopoGraph.PATTERN_RING && tmp.speedIntra == out.speedIntra
                    && tmp.speedIntra < tmp.speedInter * 2 && speedIndex > 0) {
                tmp.speedIntra = speeds[--speedIndex];
                continue;
            }
            time[0] = -1;
            tmp.copyFrom(out);
            break;
        }

        if (out.nChannels == 0 && out.collNet == 0) {
            Log.warn("Could not find a path for pattern %d, falling back to simple order", out.pattern);
            for (int i = 0; i < ngpus; i++) {
                out.intra[i] = gpus[i].rank;
            }
            out.inter[0] = out.inter[1] = 0;
            out.speedIntra = out.speedInter = 0.1f;
            out.typeIntra = out.typeInter = PathType.SYS;
            out.nChannels = 1;
        }
        if (out.speedIntra >= 25.0) {
            int dup = Math.min(out.nChannels * 2, out.maxChannels);
            System.arraycopy(out.intra, 0, out.intra, out.nChannels * ngpus, (dup - out.nChannels) * ngpus);
            System.arraycopy(out.inter, 0, out.inter, out.nChannels * 2, (dup - out.nChannels) * 2);
            int div = (dup + out.nChannels - 1) / out.nChannels;
            out.speedIntra /= div;
            out.speedInter /= div;
            out.nChannels = dup;
        }
    }

    // ---- bandwidth bookkeeping -------------------------------------------------------------

    private static TopoLink revLink(TopoNode node1, TopoNode node2) {
        for (TopoLink l : node2.links) {
            if (l.remNode == node1) {
                return l;
            }
        }
        throw NcclException.of(Result.INTERNAL_ERROR, String.format("Could not find rev link for %d/%d -> %d/%d",
                node1.type, node1.id, node2.type, node2.id), null);
    }

    private static float subRound(float a, float b) {
        return CNum.roundf((a - b) * 1000f) / 1000f;
    }

    /** {@code followPath}: debits {@code speed} along the first {@code maxSteps} links; returns the steps done. */
    private static int followPath(TopoPath path, TopoNode start, int maxSteps, float speed) {
        float pciSpeed = speed;
        for (int step = 0; step < path.count; step++) {
            TopoNode node = path.list[step].remNode;
            if (node.type == NodeType.CPU && path.type == PathType.PHB && start.type == NodeType.GPU
                    && node.arch == Cpu.ARCH_X86 && node.vendor == Cpu.VENDOR_INTEL) {
                // P2P through an Intel root complex costs more PCI bandwidth.
                pciSpeed = speed * 6 / 5;
            }
        }
        TopoNode node = start;
        for (int step = 0; step < maxSteps; step++) {
            TopoLink link = path.list[step];
            TopoLink rev = null;
            float fwSpeed = link.type == LinkType.PCI ? pciSpeed : speed;
            float revSpeed = 0;
            if (link.remNode.type == NodeType.GPU && link.remNode.cudaCompCap < 80 && start.type != NodeType.GPU) {
                rev = revLink(node, link.remNode);
                revSpeed += fwSpeed / 8;
            }
            if (link.remNode.type == NodeType.CPU && link.type == LinkType.NVL) {
                if (rev == null) {
                    rev = revLink(node, link.remNode);
                }
                revSpeed += fwSpeed;
            }
            if (link.width < fwSpeed || (revSpeed != 0 && rev.width < revSpeed)) {
                return step;
            }
            link.width = subRound(link.width, fwSpeed);
            if (revSpeed != 0) {
                rev.width = subRound(rev.width, revSpeed);
            }
            node = link.remNode;
        }
        return maxSteps;
    }

    /** {@code ncclTopoFollowPath}: the destination node if the path fits (bandwidth debited, mult 1) or is undone (mult -1), else null. */
    private TopoNode follow(int type1, int index1, int type2, int index2, int mult) {
        TopoNode dst = type2 == NodeType.GPU ? gpus[index2] : nets[index2];
        if (type1 == -1) {
            return dst;
        }
        TopoNode node1 = type1 == NodeType.GPU ? gpus[index1] : nets[index1];
        TopoPath path = node1.paths[type2][index2];
        if (path.count == 0) {
            return dst;
        }
        boolean intra = type1 == NodeType.GPU && type2 == NodeType.GPU;
        float speed = intra ? graph.speedIntra : graph.speedInter;
        int type = intra ? graph.typeIntra : graph.typeInter;
        if (mult == 1 && path.type > type) {
            return null;
        }
        speed *= mult;
        int step = followPath(path, node1, path.count, speed);
        if (step < path.count) {
            followPath(path, node1, step, -speed);
            return null;
        }
        graph.nHops += mult * path.count;
        return dst;
    }

    private static int gpuPciWidth(TopoNode gpu) {
        for (TopoLink gpuLink : gpu.links) {
            if (gpuLink.type != LinkType.PCI) {
                continue;
            }
            for (TopoLink pciLink : gpuLink.remNode.links) {
                if (pciLink.remNode == gpu) {
                    return (int) Math.min(gpuLink.width, pciLink.width);
                }
            }
        }
        return -1;
    }

    // ---- candidate orders --------------------------------------------------------------------

    private int netIndex(long id) {
        for (int n = 0; n < nets.length; n++) {
            if (nets[n].id == id) {
                return n;
            }
        }
        throw NcclException.of(Result.INTERNAL_ERROR, String.format("Could not find net id %x", id), null);
    }

    private int gpuIndexOfRank(int rank) {
        for (int g = 0; g < ngpus; g++) {
            if (gpus[g].rank == rank) {
                return g;
            }
        }
        throw NcclException.of(Result.INTERNAL_ERROR, "Could not find gpu rank " + rank, null);
    }

    /** {@code cmpScore} &lt; 0: score i sorts before score j (a total order: start indices differ). */
    private int cmpScore(int i, int j) {
        int d;
        if ((d = scoreInterWidth[j] - scoreInterWidth[i]) != 0) {
            return d;
        }
        if ((d = scoreInterPciWidth[j] - scoreInterPciWidth[i]) != 0) {
            return d;
        }
        if ((d = scoreInterHops[i] - scoreInterHops[j]) != 0) {
            return d;
        }
        if ((d = scoreIntraWidth[j] - scoreIntraWidth[i]) != 0) {
            return d;
        }
        if ((d = scoreIntraHops[i] - scoreIntraHops[j]) != 0) {
            return d;
        }
        return scoreStart[i] - scoreStart[j];
    }

    private void swapScores(int i, int j) {
        swap(scoreG, i, j);
        swap(scoreStart, i, j);
        swap(scoreIntraHops, i, j);
        swap(scoreIntraWidth, i, j);
        swap(scoreInterHops, i, j);
        swap(scoreInterPciWidth, i, j);
        swap(scoreInterWidth, i, j);
    }

    private static void swap(int[] a, int i, int j) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }

    /** {@code ncclTopoSearchNextGpuSort}: next GPUs, best first; returns how many. */
    private int nextGpuSort(int g, int[] next, int sortNet) {
        long flag = 1L << graph.nChannels;
        TopoPath[] paths = gpus[g].paths[NodeType.GPU];
        TopoPath[] netPaths = sortNet != 0 ? nets[netIndex(graph.inter[graph.nChannels * 2])].paths[NodeType.GPU] : null;
        int count = 0;
        for (int i = 1; i < ngpus; i++) {
            int gg = (g + i) % ngpus;
            if (paths[gg].count == 0 || (gpus[gg].used & flag) != 0) {
                continue;
            }
            scoreG[count] = gg;
            scoreStart[count] = i;
            scoreIntraHops[count] = paths[gg].count;
            scoreIntraWidth[count] = (int) paths[gg].width;
            if (netPaths != null) {
                scoreInterHops[count] = netPaths[gg].count;
                scoreInterPciWidth[count] = gpuPciWidth(gpus[gg]);
                scoreInterWidth[count] = (int) netPaths[gg].width;
            } else {
                scoreInterHops[count] = 0;
                scoreInterPciWidth[count] = 0;
                scoreInterWidth[count] = 0;
            }
            count++;
        }
        for (int i = 1; i < count; i++) {
            for (int j = i; j > 0 && cmpScore(j, j - 1) < 0; j--) {
                swapScores(j, j - 1);
            }
        }
        boolean sameIntra = true;
        for (int i = 1; i < count; i++) {
            if (scoreIntraWidth[i] != scoreIntraWidth[0] || scoreIntraHops[i] != scoreIntraHops[0]) {
                sameIntra = false;
            }
        }
        if (sortNet == -1 && sameIntra) {
            for (int i = 0; i < count; i++) {
                next[i] = scoreG[count - 1 - i];
            }
        } else {
            System.arraycopy(scoreG, 0, next, 0, count);
        }
        return count;
    }

    /** {@code ncclTopoReplayGetGpu}: the GPU after {@code step} in the previous channel. */
    private int replayGetGpu(int step) {
        if (graph.nChannels == 0) {
            throw NcclException.of(Result.INTERNAL_ERROR, "replay without a previous channel", null);
        }
        int nextRank = graph.intra[(graph.nChannels - 1) * ngpus + step + 1];
        for (int i = 0; i < ngpus; i++) {
            if (gpus[i].rank == nextRank) {
                return i;
            }
        }
        throw NcclException.of(Result.INTERNAL_ERROR, "replay: rank " + nextRank + " not found", null);
    }

    /** {@code ncclTopoSelectNets}: NETs with the widest path to a GPU, by hop count, rotated by the first GPU's dev. */
    private int selectNets(int[] out) {
        int netcount = 0;
        for (int n = 0; n < nets.length; n++) {
            netMaxWidths[n] = 0f;
            netMinHops[n] = 255;
            TopoPath[] paths = nets[n].paths[NodeType.GPU];
            for (int g = 0; g < ngpus; g++) {
                if (paths[g].width > netMaxWidths[n] || (paths[g].width == netMaxWidths[n] && paths[g].count < netMinHops[n])) {
                    netMaxWidths[n] = paths[g].width;
                    netMinHops[n] = paths[g].count;
                }
            }
            if (netcount != 0 && netMaxWidths[out[0]] > netMaxWidths[n]) {
                continue;
            }
            if (netcount != 0 && netMaxWidths[out[0]] < netMaxWidths[n]) {
                netcount = 0;
            }
            int index = 0;
            while (index < netcount && netMinHops[n] >= netMinHops[out[index]]) {
                index++;
            }
            for (int i = netcount; i > index; i--) {
                out[i] = out[i - 1];
            }
            out[index] = n;
            netcount++;
        }
        for (int start = 0; start < netcount;) {
            int end = start + 1;
            while (end < netcount && netMinHops[out[end]] == netMinHops[out[start]]) {
                end++;
            }
            for (int r = 0; r < gpus[0].dev % (end - start); r++) {
                int first = out[start];
                System.arraycopy(out, start + 1, out, start, end - 1 - start);
                out[end - 1] = first;
            }
            start = end;
        }
        return netcount;
    }

    // ---- recursive search ---------------------------------------------------------------------

    private void tryGpu(int step, int backToNet, int backToFirstRank, int forcedOrder, int[] time, int type, int index, int g) {
        long flag = 1L << graph.nChannels;
        TopoNode gpu = follow(type, index, NodeType.GPU, g, 1);
        if (gpu != null) {
            gpu.used ^= flag;
            recGpu(gpu, g, step, backToNet, backToFirstRank, forcedOrder, time);
            gpu.used ^= flag;
            follow(type, index, NodeType.GPU, g, -1);
        }
    }

    private boolean betterThanSaved() {
        TopoGraph ref = saveGraph;
        if (graph.nChannels < graph.minChannels) {
            return false;
        }
        float mine = graph.nChannels * graph.speedIntra;
        float theirs = ref.nChannels * ref.speedIntra;
        if (mine < theirs) {
            return false;
        }
        if (mine > theirs) {
            return true;
        }
        return graph.pattern == ref.pattern && graph.crossNic == ref.crossNic && graph.nHops < ref.nHops;
    }

    private void recGpu(TopoNode gpu, int g, int step, int backToNet, int backToFirstRank, int forcedOrder, int[] time) {
        if (time[0] <= 0) {
            return;
        }
        time[0]--;
        if (step == ngpus) {
            graph.nChannels++;
            if (betterThanSaved()) {
                saveGraph.copyFrom(graph);
                if (graph.nChannels == graph.maxChannels) {
                    time[0] = -1;
                }
            }
            if (graph.nChannels < graph.maxChannels) {
                searchRec(time);
            }
            graph.nChannels--;
            return;
        }
        graph.intra[graph.nChannels * ngpus + step] = gpu.rank;
        if (step == backToNet) {
            if (nets.length > 0) {
                TopoNode startNet = nets[netIndex(graph.inter[graph.nChannels * 2])];
                for (int n = 0; n < nets.length; n++) {
                    TopoNode net = nets[n];
                    if (graph.pattern == TopoGraph.PATTERN_TREE && net.id != startNet.id) {
                        continue;
                    }
                    if (graph.crossNic != 1 && (net.asic != startNet.asic || net.port != startNet.port)) {
                        continue;
                    }
                    int nextBackToNet = -1;
                    float speedInterSave = graph.speedInter;
                    if (graph.pattern == TopoGraph.PATTERN_BALANCED_TREE) {
                        // Count half of the bandwidth on each of the first two GPUs.
                        if (step == 0) {
                            nextBackToNet = 1;
                        } else if (net.id != graph.inter[graph.nChannels * 2 + 1]) {
                            continue;
                        }
                        graph.speedInter /= 2;
                    }
                    TopoNode reached = follow(NodeType.GPU, g, NodeType.NET, n, 1);
                    graph.speedInter = speedInterSave;
                    if (reached != null) {
                        graph.inter[graph.nChannels * 2 + 1] = (int) net.id;
                        recGpu(gpu, g, step, nextBackToNet, backToFirstRank, forcedOrder, time);
                        if (graph.pattern == TopoGraph.PATTERN_BALANCED_TREE) {
                            graph.speedInter /= 2;
                        }
                        follow(NodeType.GPU, g, NodeType.NET, n, -1);
                        graph.speedInter = speedInterSave;
                    }
                }
            }
        } else if (step < ngpus - 1) {
            int[] next = nextScratch[graph.nChannels * ngpus + step];
            int count;
            if (forcedOrder == FORCED_ORDER_PCI) {
                next[0] = step + 1;
                count = 1;
            } else if (forcedOrder == FORCED_ORDER_REPLAY) {
                next[0] = replayGetGpu(step);
                count = 1;
            } else {
                count = nextGpuSort(g, next, backToNet == -1 ? 0 : backToNet == step + 1 ? 1 : -1);
            }
            for (int i = 0; i < count; i++) {
                tryGpu(step + 1, backToNet, backToFirstRank, forcedOrder, time, NodeType.GPU, g, next[i]);
            }
        } else if (step == backToFirstRank) {
            int p = gpuIndexOfRank(graph.intra[graph.nChannels * ngpus]);
            TopoNode first = follow(NodeType.GPU, g, NodeType.GPU, p, 1);
            if (first != null) {
                recGpu(first, p, step + 1, backToNet, -1, forcedOrder, time);
                follow(NodeType.GPU, g, NodeType.GPU, p, -1);
            }
        } else {
            recGpu(gpu, g, ngpus, -1, -1, forcedOrder, time);
        }
    }

    private void recNet(int backToNet, int backToFirstRank, int[] time) {
        int speed = (int) graph.speedInter;
        int[] order = netScratch[graph.nChannels];
        int netcount = selectNets(order);
        for (int i = 0; i < netcount; i++) {
            int n = order[i];
            TopoNode net = nets[n];
            if (graph.collNet != 0 && net.collSupport == 0) {
                continue;
            }
            if (net.netWidth < speed || net.maxChannels == 0) {
                continue;
            }
            graph.inter[graph.nChannels * 2] = (int) net.id;
            for (TopoNode other : nets) {
                if (other.asic == net.asic && other.port == net.port) {
                    other.netWidth -= speed;
                }
            }
            net.maxChannels--;

            if (graph.nChannels > 0) {
                // First try to replay the last channel.
                int g = replayGetGpu(-1);
                tryGpu(0, backToNet, backToFirstRank, FORCED_ORDER_REPLAY, time, NodeType.NET, n, g);
            }
            if (graph.nChannels == 0 || graph.sameChannels == 0) {
                if (graph.nChannels == 0) {
                    // PCI order first as a reference, on its own small budget.
                    int[] t = {1 << 10};
                    tryGpu(0, backToNet, backToFirstRank, FORCED_ORDER_PCI, t, NodeType.NET, n, 0);
                    if (t[0] == -1) {
                        time[0] = -1;
                    }
                }
                // Then the GPUs closest to this NET.
                float maxWidth = 0;
                int minHops = 0xfffffff;
                TopoPath[] paths = net.paths[NodeType.GPU];
                for (int g = 0; g < ngpus; g++) {
                    if (paths[g].width > maxWidth) {
                        maxWidth = paths[g].width;
                        minHops = paths[g].count;
                    } else if (paths[g].width == maxWidth && paths[g].count < minHops) {
                        minHops = paths[g].count;
                    }
                }
                if (maxWidth >= speed) {
                    // Avoid GPUs used in both directions by different channels on the first round.
                    for (int tryGpuBidir = 0; tryGpuBidir < 2; tryGpuBidir++) {
                        for (int g = 0; g < ngpus; g++) {
                            if (paths[g].width == maxWidth && paths[g].count == minHops) {
                                int gpuUsed = gpuPciWidth(gpus[g]) > 0 ? 0 : 1;
                                if (tryGpuBidir == gpuUsed) {
                                    tryGpu(0, backToNet, backToFirstRank, 0, time, NodeType.NET, n, g);
                                }
                            }
                        }
                    }
                }
            }
            net.maxChannels++;
            for (TopoNode other : nets) {
                if (other.asic == net.asic && other.port == net.port) {
                    other.netWidth += speed;
                }
            }
        }
    }

    private void searchRec(int[] time) {
        int backToNet;
        int backToFirstRank;
        if (nets.length > 0) {
            backToNet = graph.pattern == TopoGraph.PATTERN_RING ? ngpus - 1
                    : graph.pattern == TopoGraph.PATTERN_SPLIT_TREE ? 1 : 0;
            backToFirstRank = -1;
            recNet(backToNet, backToFirstRank, time);
            return;
        }
        backToNet = -1;
        backToFirstRank = graph.pattern == TopoGraph.PATTERN_RING ? ngpus - 1 : -1;
        if (graph.nChannels == 0) {
            tryGpu(0, backToNet, backToFirstRank, FORCED_ORDER_PCI, time, -1, -1, 0);
        } else {
            tryGpu(0, backToNet, backToFirstRank, FORCED_ORDER_REPLAY, time, -1, -1, replayGetGpu(-1));
        }
        if (graph.sameChannels == 0 || graph.nChannels == 0) {
            for (int g = 0; g < ngpus; g++) {
                tryGpu(0, backToNet, backToFirstRank, 0, time, -1, -1, g);
            }
        }
    }

    /**
     * {@code ncclTopoGetNetDev}: the NET a rank uses on a channel: the graph's entry or exit NET
     * of that channel, or without a graph the {@code rr}-th closest NET.
     *
     * @param system    the system (paths computed)
     * @param rank      the rank
     * @param graph     a graph, or {@code null}
     * @param channelId the channel
     * @param rr        round-robin index when there is no graph
     * @return the NET id
     */
    public static int netDev(TopoSystem system, int rank, TopoGraph graph, int channelId, int rr) {
        if (graph != null) {
            int channel = channelId % graph.nChannels;
            int n = system.count(NodeType.GPU);
            int index = graph.intra[channel * n] == rank ? 0 : 1;
            return graph.inter[channel * 2 + index];
        }
        return (int) org.nccl4j.core.topo.paths.PathComputer.localNet(system, rank, rr);
    }
}
