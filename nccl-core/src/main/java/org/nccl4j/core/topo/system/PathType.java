package org.nccl4j.core.topo.system;

/** NCCL's path type codes and names ({@code topoPathTypeStr}), from closest to farthest. */
public final class PathType {
    /** Same node. */
    public static final int LOC = 0;
    /** Direct NVLink. */
    public static final int NVL = 1;
    /** NVLink through an intermediate GPU. */
    public static final int NVB = 2;
    /** At most one PCI switch. */
    public static final int PIX = 3;
    /** Several PCI switches, no CPU. */
    public static final int PXB = 4;
    /** Through a CPU root complex. */
    public static final int PHB = 5;
    /** Across the CPU interconnect. */
    public static final int SYS = 6;

    private static final String[] NAMES = {"LOC", "NVL", "NVB", "PIX", "PXB", "PHB", "SYS"};

    private PathType() {
    }

    /**
     * @param type a path type code
     * @return its NCCL name
     */
    public static String str(int type) {
        return NAMES[type];
    }

    /**
     * @param name a path type name
     * @return its code, or -1
     */
    public static int of(String name) {
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }
}
