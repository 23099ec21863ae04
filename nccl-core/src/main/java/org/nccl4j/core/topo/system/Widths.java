package org.nccl4j.core.topo.system;

/** NCCL v2.10.3's bandwidth constants in GB/s ({@code topo.h}), plus RCCL's xGMI widths. */
public final class Widths {
    /** A node to itself. */
    public static final float LOC = 5000.0f;
    /** NVLink per link, sm 6.x. */
    public static final float SM60_NVLINK = 18.0f;
    /** NVLink per link, sm 7.x. */
    public static final float SM70_NVLINK = 22.0f;
    /** NVLink per link, sm 8.0. */
    public static final float SM80_NVLINK = 22.0f;
    /** NVLink per link, sm 8.6. */
    public static final float SM86_NVLINK = 12.0f;
    /** PCI gen3 x16. */
    public static final float PCI = 12.0f;
    /** Intel QPI. */
    public static final float QPI = 6.0f;
    /** Intel Skylake UPI. */
    public static final float SKL_QPI = 9.0f;
    /** Zhaoxin interconnect. */
    public static final float ZPI = 6.0f;
    /** Zhaoxin Yongfeng interconnect. */
    public static final float YONGFENG_ZPI = 9.0f;
    /** POWER9. */
    public static final float P9 = 32.0f;
    /** ARM. */
    public static final float ARM = 6.0f;
    /** 100 Gb/s network. */
    public static final float NET = 12.0f;
    /** RCCL: xGMI per link, MI50/MI100. */
    public static final float VEGA_XGMI = 24.0f;
    /** RCCL: xGMI per link, MI200 (gfx90a). */
    public static final float MI200_XGMI = 36.0f;
    /** RCCL: xGMI per link, MI300 (gfx94x). */
    public static final float GFX94X_XGMI = 48.0f;

    private Widths() {
    }

    /**
     * {@code ncclTopoNVLinkSpeed}.
     *
     * @param cudaCompCap compute capability ×10
     * @return the width of one NVLink
     */
    public static float nvLink(int cudaCompCap) {
        return cudaCompCap == 86 ? SM86_NVLINK
                : cudaCompCap >= 80 ? SM80_NVLINK
                : cudaCompCap >= 70 ? SM70_NVLINK
                : cudaCompCap >= 60 ? SM60_NVLINK
                : SM80_NVLINK;
    }

    /**
     * RCCL's {@code ncclTopoXGMISpeed}: by the GPU's {@code gcn} attribute (gfx90a or the older
     * numeric 910 → MI200, gfx94x or 94x → MI300, else Vega).
     *
     * @param gcn the GPU's gcn attribute, may be {@code null}
     * @return the width of one xGMI link
     */
    public static float xgmi(String gcn) {
        if (gcn != null && (gcn.startsWith("gfx90a") || gcn.equals("910"))) {
            return MI200_XGMI;
        }
        if (gcn != null && (gcn.startsWith("gfx94") || gcn.startsWith("94"))) {
            return GFX94X_XGMI;
        }
        return VEGA_XGMI;
    }
}
