package org.nccl4j.core.topo.system;

/** NCCL's link type codes and names ({@code topoLinkTypeStr}); codes line up with path types. */
public final class LinkType {
    /** A node's link to itself. */
    public static final int LOC = 0;
    /** NVLink (and RCCL's xGMI). */
    public static final int NVL = 1;
    /** PCI. */
    public static final int PCI = 3;
    /** CPU interconnect. */
    public static final int SYS = 6;
    /** NIC to network port. */
    public static final int NET = 7;

    private static final String[] NAMES = {"LOC", "NVL", "", "PCI", "", "", "SYS", "NET"};

    private LinkType() {
    }

    /**
     * @param type a link type code
     * @return its NCCL name
     */
    public static String str(int type) {
        return NAMES[type];
    }
}
