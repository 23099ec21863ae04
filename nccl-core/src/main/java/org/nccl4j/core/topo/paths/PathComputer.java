package org.nccl4j.core.topo.paths;

import java.util.ArrayList;
import java.util.List;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.topo.system.Cpu;
import org.nccl4j.core.topo.system.LinkType;
import org.nccl4j.core.topo.system.NodeType;
import org.nccl4j.core.topo.system.PathType;
import org.nccl4j.core.topo.system.TopoLink;
import org.nccl4j.core.topo.system.TopoNode;
import org.nccl4j.core.topo.system.TopoPath;
import org.nccl4j.core.topo.system.TopoSystem;
import org.nccl4j.core.topo.system.Widths;

/**
 * {@code paths.cc}: breadth-first path computation, the P2P and GPU Direct RDMA policies that
 * reroute paths through a CPU, and system trimming.
 */
public final class PathComputer {
    private PathComputer() {
    }

    /**
     * {@code ncclTopoComputePaths}: paths from every node to every CPU, GPU and NET.
     *
     * @param system the system
     * @param peers  peer infos indexed by rank, or {@code null} to skip the reachability check
     * @param policy user settings
     */
    public static void computePaths(TopoSystem system, TopoPeer[] peers, PathPolicy policy) {
        for (int t = 0; t < NodeType.COUNT; t++) {
            removePathType(system, t);
        }
        for (TopoNode cpu : system.nodes(NodeType.CPU)) {
            setPaths(cpu, system, policy.nvbDisable());
        }
        List<TopoNode> gpus = system.nodes(NodeType.GPU);
        for (int g = 0; g < gpus.size(); g++) {
            setPaths(gpus.get(g), system, policy.nvbDisable());
            for (int p = 0; p < gpus.size(); p++) {
                if (!checkP2p(system, gpus.get(p).id, gpus.get(g).id, policy).p2p()) {
                    addCpuStep(system, localCpu(system, g), NodeType.GPU, p, NodeType.GPU, g);
                }
            }
            if (peers == null) {
                continue;
            }
            TopoPeer dst = peers[gpus.get(g).rank];
            for (int p = 0; p < gpus.size(); p++) {
                if (p == g) {
                    continue;
                }
                TopoPeer src = peers[gpus.get(p).rank];
                if (!shmCanConnect(src, dst, policy) && !p2pCanConnect(system, src, dst, policy)) {
                    // Unreachable (containers): trimmed later.
                    gpus.get(p).paths[NodeType.GPU][g].count = 0;
                }
            }
        }
        List<TopoNode> nets = system.nodes(NodeType.NET);
        for (int n = 0; n < nets.size(); n++) {
            TopoNode net = nets.get(n);
            setPaths(net, system, policy.nvbDisable());
            for (int g = 0; g < gpus.size(); g++) {
                if (!checkGdr(system, gpus.get(g).id, net.id, false, policy)) {
                    int cpu = localCpu(system, g);
                    addCpuStep(system, cpu, NodeType.NET, n, NodeType.GPU, g);
                    addCpuStep(system, cpu, NodeType.GPU, g, NodeType.NET, n);
                }
            }
        }
    }

    private static void removePathType(TopoSystem system, int nodeType) {
        for (int t = 0; t < NodeType.COUNT; t++) {
            for (TopoNode n : system.nodes(t)) {
                n.paths[nodeType] = null;
            }
            for (TopoNode n : system.nodes(nodeType)) {
                n.paths[t] = null;
            }
        }
    }

    private static TopoPath[] pathsTo(TopoNode node, TopoSystem system, int type) {
        TopoPath[] p = node.paths[type];
        if (p == null) {
            p = new TopoPath[system.count(type)];
            for (int i = 0; i < p.length; i++) {
                p[i] = new TopoPath();
            }
            node.paths[type] = p;
        }
        return p;
    }

    /** {@code ncclTopoSetPaths}: BFS computing every node's path to {@code base}. */
    private static void setPaths(TopoNode base, TopoSystem system, boolean nvbDisable) {
        int bt = base.type;
        int bi = system.idToIndex(bt, base.id);
        if (bi < 0) {
            throw NcclException.of(Result.INTERNAL_ERROR, String.format("Could not find node of type %d id %x", bt, base.id), null);
        }
        TopoPath basePath = pathsTo(base, system, bt)[bi];
        basePath.count = 0;
        basePath.width = Widths.LOC;
        basePath.type = PathType.LOC;
        List<TopoNode> list = new ArrayList<>();
        list.add(base);
        while (!list.isEmpty()) {
            List<TopoNode> next = new ArrayList<>();
            for (TopoNode node : list) {
                TopoPath path = node.paths[bt][bi];
                for (TopoLink link : node.links) {
                    TopoNode rem = link.remNode;
                    TopoPath remPath = pathsTo(rem, system, bt)[bi];
                    float width = Math.min(path.width, link.width);
                    // A GPU relays only as the one NVLink hop of an NVB path.
                    if (node != base && node.type == NodeType.GPU
                            && (nvbDisable || link.type != LinkType.NVL || rem.type != NodeType.GPU || path.count > 1)) {
                        continue;
                    }
                    if ((remPath.width == 0 || remPath.count > path.count) && remPath.width < width) {
                        TopoLink rev = rem.linkTo(node);
                        if (rev == null) {
                            throw NcclException.of(Result.INTERNAL_ERROR, String.format(
                                    "Failed to find reverse path from remNode %d/%x nlinks %d to node %d/%x",
                                    rem.type, rem.id, rem.links.size(), node.type, node.id), null);
                        }
                        remPath.ensure(path.count + 1);
                        remPath.list[0] = rev;
                        System.arraycopy(path.list, 0, remPath.list, 1, path.count);
                        remPath.count = path.count + 1;
                        remPath.width = width;
                        int type = link.type == LinkType.NET ? LinkType.LOC : link.type;
                        if (node.type == NodeType.PCI && rem.type == NodeType.PCI) {
                            type = PathType.PXB;
                        }
                        if (link.type == LinkType.PCI && (node.type == NodeType.CPU || rem.type == NodeType.CPU)) {
                            type = PathType.PHB;
                        }
                        if (node.type == NodeType.GPU && path.type == PathType.NVL && type == PathType.NVL && remPath.count > 1) {
                            type = PathType.NVB;
                        }
                        remPath.type = Math.max(path.type, type);
                        if (!next.contains(rem)) {
                            next.add(rem);
                        }
                    }
                }
            }
            list = next;
        }
    }

    /** {@code getLocalCpu}: fewest hops, where a running minimum of 0 means unset. */
    private static int localCpu(TopoSystem system, int gpu) {
        TopoPath[] paths = system.node(NodeType.GPU, gpu).paths[NodeType.CPU];
        int minHops = 0;
        int local = -1;
        for (int c = 0; c < system.count(NodeType.CPU); c++) {
            int hops = paths[c].count;
            if (minHops == 0 || hops < minHops) {
                local = c;
                minHops = hops;
            }
        }
        if (local == -1) {
            throw NcclException.of(Result.INTERNAL_ERROR, "Error : could not find CPU close to GPU " + gpu, null);
        }
        return local;
    }

    /** {@code addCpuStep}: replaces the path t1/i1 → t2/i2 by t1/i1 → CPU c → t2/i2. */
    private static void addCpuStep(TopoSystem system, int c, int t1, int i1, int t2, int i2) {
        TopoNode cpu = system.node(NodeType.CPU, c);
        TopoNode src = system.node(t1, i1);
        TopoPath toCpu = src.paths[NodeType.CPU][c];
        TopoPath fromCpu = cpu.paths[t2][i2];
        TopoPath p = src.paths[t2][i2];
        p.ensure(toCpu.count + fromCpu.count);
        System.arraycopy(toCpu.list, 0, p.list, 0, toCpu.count);
        System.arraycopy(fromCpu.list, 0, p.list, toCpu.count, fromCpu.count);
        p.count = toCpu.count + fromCpu.count;
        p.type = Math.max(toCpu.type, fromCpu.type);
        p.width = Math.min(toCpu.width, fromCpu.width);
    }

    /**
     * Result of {@link #checkP2p}.
     *
     * @param p2p              whether P2P may be used
     * @param read             whether P2P read should be used (Ampere over NVLink)
     * @param intermediateRank the rank of the GPU a 2-hop path goes through, or -1
     */
    public record P2pCheck(boolean p2p, boolean read, int intermediateRank) {
    }

    /**
     * {@code ncclTopoCheckP2p}.
     *
     * @param system the system (paths computed)
     * @param id1    bus id of the first GPU (must be in the system)
     * @param id2    bus id of the second GPU
     * @param policy user settings
     * @return the decision
     */
    public static P2pCheck checkP2p(TopoSystem system, long id1, long id2, PathPolicy policy) {
        int g1 = system.idToIndex(NodeType.GPU, id1);
        if (g1 < 0) {
            throw NcclException.of(Result.INTERNAL_ERROR, String.format("GPU %x not found", id1), null);
        }
        int g2 = system.idToIndex(NodeType.GPU, id2);
        if (g2 < 0) {
            return new P2pCheck(false, false, -1);
        }
        TopoNode gpu1 = system.node(NodeType.GPU, g1);
        TopoPath path = gpu1.paths[NodeType.GPU][g2];
        int intermediateRank = -1;
        if (path.count == 2) {
            TopoNode mid = path.list[0].remNode;
            if (mid.type == NodeType.GPU) {
                intermediateRank = mid.rank;
            }
        }
        int p2pLevel = PathType.SYS;
        if (policy.p2pLevel() != -2) {
            p2pLevel = policy.p2pLevel();
        } else {
            TopoNode cpu = system.node(NodeType.CPU, 0);
            if (cpu.arch == Cpu.ARCH_ARM) {
                p2pLevel = PathType.PXB;
            }
            if (cpu.arch == Cpu.ARCH_X86 && (cpu.vendor == Cpu.VENDOR_INTEL || cpu.vendor == Cpu.VENDOR_ZHAOXIN)) {
                p2pLevel = PathType.PXB;
            }
        }
        boolean p2p = path.type <= p2pLevel;
        boolean read = false;
        if (path.type == PathType.NVL) {
            TopoNode gpu2 = system.node(NodeType.GPU, g2);
            read = gpu1.cudaCompCap == gpu2.cudaCompCap && gpu1.cudaCompCap == 80;
        }
        return new P2pCheck(p2p, read, intermediateRank);
    }

    /** SHM transport's {@code canConnect}: same host and same {@code /dev/shm}, unless disabled. */
    /**
     * SHM transport's {@code canConnect}: same host and container, unless {@code NCCL_SHM_DISABLE}.
     *
     * @param a      one rank
     * @param b      another
     * @param policy user settings
     * @return whether the two can share host memory
     */
    public static boolean shmCanConnect(TopoPeer a, TopoPeer b, PathPolicy policy) {
        return !policy.shmDisable() && a.hostHash() == b.hostHash() && a.shmDev() == b.shmDev();
    }

    /**
     * P2P transport's {@code canConnect} without a CUDA runtime: same host and container, and the
     * topology allows it.
     *
     * @param system the system (paths computed)
     * @param a      the rank whose GPU is in {@code system}
     * @param b      another rank (false when its GPU was trimmed away)
     * @param policy user settings
     * @return whether P2P may connect them
     */
    public static boolean p2pCanConnect(TopoSystem system, TopoPeer a, TopoPeer b, PathPolicy policy) {
        if (a.hostHash() != b.hostHash() || a.shmDev() != b.shmDev()) {
            return false;
        }
        return checkP2p(system, a.busId(), b.busId(), policy).p2p();
    }

    /**
     * {@code ncclTopoCheckGdr}: whether GPU Direct RDMA is used between a GPU and a NET.
     *
     * @param system the system (paths computed)
     * @param busId  the GPU's bus id
     * @param netDev the NET id
     * @param read   for sends (reads from GPU memory)
     * @param policy user settings
     * @return whether to use GDR
     */
    public static boolean checkGdr(TopoSystem system, long busId, long netDev, boolean read, PathPolicy policy) {
        int n = system.idToIndex(NodeType.NET, netDev);
        int g = system.idToIndex(NodeType.GPU, busId);
        if (n < 0 || g < 0) {
            throw NcclException.of(Result.INTERNAL_ERROR, String.format("GPU %x or NET %d not found", busId, netDev), null);
        }
        TopoNode net = system.node(NodeType.NET, n);
        TopoNode gpu = system.node(NodeType.GPU, g);
        if (net.gdrSupport == 0 || gpu.gdrSupport == 0) {
            return false;
        }
        if (read) {
            int gdrRead = policy.netGdrRead();
            if (gdrRead == 0) {
                return false;
            }
            if (gdrRead < 0) {
                // Keep things local unless the GPU has NVLink peers (or is alone).
                boolean nvlink = system.count(NodeType.GPU) == 1;
                for (int i = 0; i < system.count(NodeType.GPU); i++) {
                    if (i != g && gpu.paths[NodeType.GPU][i].type == PathType.NVL) {
                        nvlink = true;
                        break;
                    }
                }
                if (!nvlink) {
                    return false;
                }
            }
        }
        int level = policy.gdrLevel() != -2 ? policy.gdrLevel() : PathType.PXB;
        int distance = gpu.paths[NodeType.NET][n].type;
        if (distance > level) {
            Log.info(Subsys.NET, "GPU Direct RDMA Disabled for GPU %x / HCA %d (distance %d > %d)", busId, netDev, distance, level);
            return false;
        }
        Log.info(Subsys.NET, "GPU Direct RDMA Enabled for GPU %x / HCA %d (distance %d <= %d), read %d", busId, netDev, distance,
                level, read ? 1 : 0);
        return true;
    }

    /**
     * {@code ncclTopoTrimSystem}: removes the GPUs this rank cannot reach and, when every rank is
     * on this node, all NETs.
     *
     * @param system the system (paths computed)
     * @param rank   this rank
     * @param nRanks ranks in the communicator
     * @return {@code localRanks}: GPUs left
     */
    public static int trimSystem(TopoSystem system, int rank, int nRanks) {
        int ngpus = system.count(NodeType.GPU);
        int[] domains = new int[ngpus];
        long[] ids = new long[ngpus];
        int myDomain = 0;
        for (int g = 0; g < ngpus; g++) {
            TopoNode gpu = system.node(NodeType.GPU, g);
            domains[g] = g;
            ids[g] = gpu.id;
            for (int p = 0; p < g; p++) {
                if (gpu.paths[NodeType.GPU][p].count > 0) {
                    domains[g] = Math.min(domains[g], domains[p]);
                }
            }
            if (gpu.rank == rank) {
                myDomain = domains[g];
            }
        }
        for (int i = 0; i < ngpus; i++) {
            if (domains[i] != myDomain) {
                int g = system.idToIndex(NodeType.GPU, ids[i]);
                if (g < 0) {
                    throw NcclException.of(Result.INTERNAL_ERROR, String.format("Could not find id %x", ids[i]), null);
                }
                system.remove(NodeType.GPU, g);
            }
        }
        int localRanks = system.count(NodeType.GPU);
        if (localRanks == nRanks) {
            for (int n = system.count(NodeType.NET) - 1; n >= 0; n--) {
                system.remove(NodeType.NET, n);
            }
        }
        return localRanks;
    }

    /**
     * {@code ncclTopoGetNvbGpus}: the ranks this rank reaches through an intermediate GPU.
     *
     * @param system the system (paths computed)
     * @param rank   this rank
     * @return those ranks in GPU order
     */
    public static int[] nvbGpus(TopoSystem system, int rank) {
        List<TopoNode> gpus = system.nodes(NodeType.GPU);
        List<Integer> out = new ArrayList<>();
        for (TopoNode gpu : gpus) {
            if (gpu.rank != rank) {
                continue;
            }
            for (int p = 0; p < gpus.size(); p++) {
                if (gpu.paths[NodeType.GPU][p].type == PathType.NVB) {
                    out.add(gpus.get(p).rank);
                }
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * {@code ncclTopoGetLocalNet}: among the NETs with the widest, then closest, path to the
     * rank's GPU, the {@code rr}-th (round robin).
     *
     * @param system the system (paths computed)
     * @param rank   the rank
     * @param rr     round-robin index
     * @return the NET id
     */
    public static long localNet(TopoSystem system, int rank, int rr) {
        int g = system.rankToIndex(rank);
        if (g < 0) {
            throw NcclException.of(Result.INTERNAL_ERROR, "rank " + rank + " has no GPU here", null);
        }
        int minType = PathType.SYS;
        float maxWidth = 0;
        List<Long> nets = new ArrayList<>();
        for (TopoNode net : system.nodes(NodeType.NET)) {
            TopoPath path = net.paths[NodeType.GPU][g];
            if (path.width > maxWidth || (path.width == maxWidth && path.type < minType)) {
                maxWidth = path.width;
                minType = path.type;
                nets.clear();
            }
            if (path.width == maxWidth && path.type == minType) {
                nets.add(net.id);
            }
        }
        if (nets.isEmpty()) {
            throw NcclException.of(Result.INTERNAL_ERROR, "no NET for rank " + rank, null);
        }
        return nets.get(rr % nets.size());
    }
}
