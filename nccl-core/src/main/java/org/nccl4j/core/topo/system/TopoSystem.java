package org.nccl4j.core.topo.system;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * The topology graph of one node ({@code struct ncclTopoSystem}): per-type node lists whose
 * indices are meaningful (paths are indexed by target index) and the search's bandwidth limits.
 */
public final class TopoSystem {
    /** {@code NCCL_TOPO_MAX_NODES}: nodes per type. */
    public static final int MAX_NODES = 256;

    private final List<List<TopoNode>> nodes = new ArrayList<>();
    /** Per-channel bandwidth limit set by {@code ncclTopoSearchInit}. */
    public float maxWidth;
    /** Total bandwidth of the best GPU set by {@code ncclTopoSearchInit}. */
    public float totalWidth;

    /** An empty system. */
    public TopoSystem() {
        for (int t = 0; t < NodeType.COUNT; t++) {
            nodes.add(new ArrayList<>());
        }
    }

    /**
     * @param type a node type
     * @return the nodes of that type in NCCL order (mutable; indices matter)
     */
    public List<TopoNode> nodes(int type) {
        return nodes.get(type);
    }

    /**
     * @param type a node type
     * @return how many nodes of that type exist
     */
    public int count(int type) {
        return nodes.get(type).size();
    }

    /**
     * @param type  a node type
     * @param index an index
     * @return that node
     */
    public TopoNode node(int type, int index) {
        return nodes.get(type).get(index);
    }

    /**
     * {@code ncclTopoGetNode}.
     *
     * @param type a node type
     * @param id   a node id
     * @return the node or {@code null}
     */
    public TopoNode find(int type, long id) {
        for (TopoNode n : nodes.get(type)) {
            if (n.id == id) {
                return n;
            }
        }
        return null;
    }

    /**
     * {@code ncclTopoIdToIndex}.
     *
     * @param type a node type
     * @param id   a node id
     * @return its index or -1
     */
    public int idToIndex(int type, long id) {
        List<TopoNode> l = nodes.get(type);
        for (int i = 0; i < l.size(); i++) {
            if (l.get(i).id == id) {
                return i;
            }
        }
        return -1;
    }

    /**
     * {@code ncclTopoRankToIndex}.
     *
     * @param rank a rank
     * @return the index of its GPU or -1
     */
    public int rankToIndex(int rank) {
        List<TopoNode> l = nodes.get(NodeType.GPU);
        for (int i = 0; i < l.size(); i++) {
            if (l.get(i).rank == rank) {
                return i;
            }
        }
        return -1;
    }

    /**
     * {@code ncclTopoCreateNode}: appends a node with NCCL's initial values (a GPU gets a LOC
     * link to itself).
     *
     * @param type a node type
     * @param id   its id
     * @return the node
     */
    public TopoNode create(int type, long id) {
        if (count(type) == MAX_NODES) {
            throw NcclException.of(Result.INTERNAL_ERROR, "Error : tried to create too many nodes of type " + type, null);
        }
        TopoNode n = new TopoNode(type, id);
        if (type == NodeType.GPU) {
            n.links.add(new TopoLink(LinkType.LOC, Widths.LOC, n));
        } else if (type == NodeType.NET) {
            n.asic = 0;
            n.netWidth = 0f;
        }
        nodes.get(type).add(n);
        return n;
    }

    /**
     * {@code ncclTopoRemoveNode}: deletes a node and every link to it.
     *
     * @param type  its type
     * @param index its index
     */
    public void remove(int type, int index) {
        TopoNode del = nodes.get(type).get(index);
        for (List<TopoNode> list : nodes) {
            for (TopoNode n : list) {
                if (n != del) {
                    n.links.removeIf(l -> l.remNode == del);
                }
            }
        }
        nodes.get(type).remove(index);
    }

    /**
     * {@code ncclTopoCpuType}: the first CPU's arch, vendor and model.
     *
     * @return {@code {arch, vendor, model}}
     */
    public int[] cpuType() {
        TopoNode c = node(NodeType.CPU, 0);
        return new int[] {c.arch, c.vendor, c.model};
    }

    /**
     * {@code ncclTopoGetNetCount}.
     *
     * @return the number of NET nodes
     */
    public int netCount() {
        return count(NodeType.NET);
    }

    /**
     * {@code ncclTopoGetCompCap}.
     *
     * @return {@code {min, max}} compute capability over the GPUs
     * @throws NcclException INTERNAL_ERROR without GPUs
     */
    public int[] compCap() {
        if (count(NodeType.GPU) == 0) {
            throw NcclException.of(Result.INTERNAL_ERROR, "no GPU in the topology", null);
        }
        int min = Integer.MAX_VALUE;
        int max = Integer.MIN_VALUE;
        for (TopoNode g : nodes(NodeType.GPU)) {
            min = Math.min(min, g.cudaCompCap);
            max = Math.max(max, g.cudaCompCap);
        }
        return new int[] {min, max};
    }

    /**
     * {@code ncclTopoGetCpuAffinity}: the CPU set of the CPU closest (fewest hops) to the rank's
     * GPU, intersected with the current mask unless {@code ignoreCurrent}
     * ({@code NCCL_IGNORE_CPU_AFFINITY}). Needs computed paths.
     *
     * @param rank          the rank
     * @param current       the process's current affinity
     * @param ignoreCurrent use the GPU's CPU set alone
     * @return the affinity to apply (empty: leave it)
     * @throws NcclException INTERNAL_ERROR if the rank has no GPU here
     */
    public BitSet cpuAffinity(int rank, BitSet current, boolean ignoreCurrent) {
        TopoNode cpu = null;
        for (TopoNode g : nodes(NodeType.GPU)) {
            if (g.rank != rank) {
                continue;
            }
            int cpuIndex = -1;
            int minHops = 0;
            for (int c = 0; c < count(NodeType.CPU); c++) {
                int hops = g.paths[NodeType.CPU][c].count;
                if (cpuIndex == -1 || hops < minHops) {
                    cpuIndex = c;
                    minHops = hops;
                }
            }
            cpu = node(NodeType.CPU, cpuIndex);
        }
        if (cpu == null) {
            throw NcclException.of(Result.INTERNAL_ERROR, "Set CPU affinity : unable to find GPU/CPU for rank " + rank, null);
        }
        BitSet mask = parseCpuset(cpu.affinity);
        if (!ignoreCurrent) {
            mask.and(current);
        }
        return mask;
    }

    /**
     * {@code ncclStrToCpuset}: comma-separated 32-bit hex words, most significant first.
     *
     * @param s the mask text, may be {@code null}
     * @return the CPU set
     */
    public static BitSet parseCpuset(String s) {
        BitSet set = new BitSet();
        if (s == null) {
            return set;
        }
        String[] words = s.split(",");
        int bit = 0;
        for (int w = words.length - 1; w >= 0; w--, bit += 32) {
            long v = words[w].isEmpty() ? 0 : Long.parseLong(words[w].trim(), 16);
            for (int b = 0; b < 32; b++) {
                if ((v & (1L << b)) != 0) {
                    set.set(bit + b);
                }
            }
        }
        return set;
    }
}
