package org.nccl4j.core.topo.tuning;

/**
 * The first CPU's type as {@code ncclTopoCpuType} reports it, with NCCL's codes ({@code graph.h}).
 *
 * @param arch   {@link #ARCH_X86}, {@link #ARCH_POWER}, {@link #ARCH_ARM}, or 0 if unknown
 * @param vendor {@link #VENDOR_INTEL}, {@link #VENDOR_AMD}, {@link #VENDOR_ZHAOXIN}, or 0
 * @param model  {@link #MODEL_BDW}, {@link #MODEL_SKL} (Intel), {@link #MODEL_YONGFENG} (Zhaoxin), or 0
 */
public record CpuType(int arch, int vendor, int model) {
    /** {@code NCCL_TOPO_CPU_ARCH_X86}. */
    public static final int ARCH_X86 = 1;
    /** {@code NCCL_TOPO_CPU_ARCH_POWER}. */
    public static final int ARCH_POWER = 2;
    /** {@code NCCL_TOPO_CPU_ARCH_ARM}. */
    public static final int ARCH_ARM = 3;
    /** {@code NCCL_TOPO_CPU_VENDOR_INTEL}. */
    public static final int VENDOR_INTEL = 1;
    /** {@code NCCL_TOPO_CPU_VENDOR_AMD}. */
    public static final int VENDOR_AMD = 2;
    /** {@code NCCL_TOPO_CPU_VENDOR_ZHAOXIN}. */
    public static final int VENDOR_ZHAOXIN = 3;
    /** {@code NCCL_TOPO_CPU_TYPE_BDW}. */
    public static final int MODEL_BDW = 1;
    /** {@code NCCL_TOPO_CPU_TYPE_SKL}. */
    public static final int MODEL_SKL = 2;
    /** {@code NCCL_TOPO_CPU_TYPE_YONGFENG}. */
    public static final int MODEL_YONGFENG = 1;
}
