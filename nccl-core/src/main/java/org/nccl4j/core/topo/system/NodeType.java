package org.nccl4j.core.topo.system;

/** NCCL's topology node type codes and names ({@code topoNodeTypeStr}). */
public final class NodeType {
    /** A GPU. */
    public static final int GPU = 0;
    /** A PCI switch. */
    public static final int PCI = 1;
    /** An NVSwitch. */
    public static final int NVS = 2;
    /** A CPU (NUMA domain). */
    public static final int CPU = 3;
    /** A NIC (PCI device). */
    public static final int NIC = 4;
    /** A network port. */
    public static final int NET = 5;
    /** {@code NCCL_TOPO_NODE_TYPES}: size of per-type arrays (one more than the types in use). */
    public static final int COUNT = 7;

    private static final String[] NAMES = {"GPU", "PCI", "NVS", "CPU", "NIC", "NET"};

    private NodeType() {
    }

    /**
     * @param type a node type code
     * @return its NCCL name
     */
    public static String str(int type) {
        return NAMES[type];
    }
}
