package org.nccl4j.core.topo.system;

/** NCCL's CPU arch/vendor/model codes ({@code graph.h}). */
public final class Cpu {
    /** x86_64. */
    public static final int ARCH_X86 = 1;
    /** POWER. */
    public static final int ARCH_POWER = 2;
    /** ARM. */
    public static final int ARCH_ARM = 3;
    /** Intel. */
    public static final int VENDOR_INTEL = 1;
    /** AMD. */
    public static final int VENDOR_AMD = 2;
    /** Zhaoxin. */
    public static final int VENDOR_ZHAOXIN = 3;
    /** Intel Broadwell (and older). */
    public static final int TYPE_BDW = 1;
    /** Intel Skylake (and newer). */
    public static final int TYPE_SKL = 2;
    /** Zhaoxin Yongfeng. */
    public static final int TYPE_YONGFENG = 1;

    private Cpu() {
    }
}
