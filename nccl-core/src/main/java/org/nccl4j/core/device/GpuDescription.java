package org.nccl4j.core.device;

import java.util.List;

/**
 * What topology detection needs to know of one GPU of this host, as NCCL's
 * {@code ncclTopoFillGpu} asks NVML and CUDA for it: the backend that owns the GPU fills it in,
 * so that nccl-core needs no GPU library.
 *
 * @param busId   the GPU's real PCI bus id, {@code "0000:3b:00.0"} (lower case, 4-digit domain):
 *                its sysfs directory is found from it
 * @param dev     the device ordinal ({@code <gpu dev>}), as NVML's index
 * @param sm      the compute capability, major * 10 + minor ({@code <gpu sm>})
 * @param gcn     an AMD GPU's architecture name ({@code <gpu gcn>}, e.g. {@code gfx90a}), as
 *                RCCL writes it; {@code null} for an NVIDIA GPU
 * @param nvLinks the GPU's active P2P-capable NVLinks, one entry per remote device; an AMD GPU's
 *                XGMI links ({@code <xgmi>}, RCCL's NVLink-class links)
 */
public record GpuDescription(String busId, int dev, int sm, String gcn, List<NvLink> nvLinks) {
    /** {@code tclass} of a GPU (display controller, 3D). */
    public static final String CLASS_GPU = "0x030200";
    /** {@code tclass} NCCL reads as an NVSwitch (and assumes for a remote device it cannot see). */
    public static final String CLASS_NVSWITCH = "0x068000";
    /** {@code tclass} NCCL reads as a CPU (an NVLink to a POWER CPU). */
    public static final String CLASS_CPU = "0x068001";

    /** Copies the list. */
    public GpuDescription {
        nvLinks = List.copyOf(nvLinks);
    }

    /** An NVIDIA GPU: no {@code gcn}. */
    public GpuDescription(String busId, int dev, int sm, List<NvLink> nvLinks) {
        this(busId, dev, sm, null, nvLinks);
    }

    /** @return whether it is an AMD GPU, whose topology is RCCL's dialect ({@code <xgmi>} links, {@code gcn}) */
    public boolean amd() {
        return gcn != null;
    }

    /** @return the element its links are written as: {@code xgmi} (AMD) or {@code nvlink} */
    public String linkElement() {
        return amd() ? "xgmi" : "nvlink";
    }

    /**
     * The NVLinks of a GPU to one remote device ({@code <nvlink target count tclass>}).
     *
     * @param remoteBusId the remote device's PCI bus id, lower case ({@code "0000:07:00.0"});
     *                    NVML's {@code "fffffff:ffff:ff"} when the remote is not visible here
     * @param remoteClass the remote's PCI class as NVML reports its type ({@link #CLASS_GPU},
     *                    {@link #CLASS_NVSWITCH}, {@link #CLASS_CPU}), or {@code null} when unknown;
     *                    used only when the remote has no sysfs directory (its sysfs class wins, as in NCCL)
     * @param count       how many links go there
     */
    public record NvLink(String remoteBusId, String remoteClass, int count) {
    }
}
