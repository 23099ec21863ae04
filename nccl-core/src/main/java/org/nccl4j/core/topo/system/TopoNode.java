package org.nccl4j.core.topo.system;

import java.util.ArrayList;
import java.util.List;

/**
 * A node of the topology graph ({@code struct ncclTopoNode}). The type-specific fields of NCCL's
 * union are flattened; only those of the node's type are meaningful. Fields are public and
 * mutable because the builder, the path computation and the search update them in place exactly
 * as NCCL does.
 */
public final class TopoNode {
    /** {@code NCCL_TOPO_UNDEF}. */
    public static final int UNDEF = -1;

    /** Node type ({@link NodeType}). */
    public final int type;
    /** Node id: bus id for GPU/PCI/NIC, NUMA id for CPU, device index for NET. */
    public long id;

    /** GPU: CUDA device index. */
    public int dev = UNDEF;
    /** GPU: communicator rank. */
    public int rank = UNDEF;
    /** GPU: compute capability ×10. */
    public int cudaCompCap = UNDEF;
    /** GPU or NET: GPU Direct RDMA support. */
    public int gdrSupport;
    /** GPU (RCCL dialect): the {@code gcn} attribute. */
    public String gcn;

    /** NET: ASIC id (guid). */
    public long asic;
    /** NET: port. */
    public int port = UNDEF;
    /** NET: bandwidth in GB/s. */
    public float netWidth;
    /** NET: CollNet support. */
    public int collSupport;
    /** NET: channels it may still carry. */
    public int maxChannels;

    /** CPU: arch code ({@link Cpu}). */
    public int arch = UNDEF;
    /** CPU: vendor code. */
    public int vendor = UNDEF;
    /** CPU: model code. */
    public int model = UNDEF;
    /** CPU: affinity mask as written in the XML, or {@code null}. */
    public String affinity;

    /** PCI: vendor/device/subsystem ids packed as NCCL packs them. */
    public long device;

    /** Links in NCCL's stored order. */
    public final List<TopoLink> links = new ArrayList<>();
    /** Paths to every node of each type (indexed by type, then target index); {@code null} if not computed. */
    public final TopoPath[][] paths = new TopoPath[NodeType.COUNT][];
    /** Search bookkeeping: bit c set while channel c uses this GPU. */
    public long used;

    /**
     * @param type node type
     * @param id   node id
     */
    public TopoNode(int type, long id) {
        this.type = type;
        this.id = id;
    }

    /**
     * @param other a node
     * @return the first link to it, or {@code null}
     */
    public TopoLink linkTo(TopoNode other) {
        for (TopoLink l : links) {
            if (l.remNode == other) {
                return l;
            }
        }
        return null;
    }

    /**
     * {@code ncclTopoConnectNodes}: adds a link (or adds the width to an existing link of that type
     * to that node) and keeps the links sorted by decreasing width, ties keeping their order.
     *
     * @param remNode the remote node
     * @param linkType link type
     * @param width    bandwidth to add
     */
    public void connect(TopoNode remNode, int linkType, float width) {
        int l = 0;
        while (l < links.size() && !(links.get(l).remNode == remNode && links.get(l).type == linkType)) {
            l++;
        }
        TopoLink link;
        if (l == links.size()) {
            link = new TopoLink(linkType, 0f, remNode);
            links.add(link);
        } else {
            link = links.get(l);
        }
        link.width += width;
        while (l > 0 && links.get(l - 1).width < link.width) {
            links.set(l, links.get(l - 1));
            l--;
        }
        links.set(l, link);
    }
}
