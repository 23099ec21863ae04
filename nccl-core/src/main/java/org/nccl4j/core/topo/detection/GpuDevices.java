package org.nccl4j.core.topo.detection;

import java.util.List;
import java.util.Map;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.device.GpuDescription;
import org.nccl4j.core.topo.xml.CNum;
import org.nccl4j.core.topo.xml.TopoXml;
import org.nccl4j.core.topo.xml.XmlNode;

/**
 * How GPU ranks appear in the topology: NCCL's {@code ncclTopoFillGpu} and
 * {@code ncclTopoGetXmlFromGpu}, with the GPU's facts ({@link GpuDescription}) given by its
 * backend instead of NVML calls made here. The GPU's {@code <pci>} sits at its real sysfs
 * place (switches, link speed and width, NUMA node's CPU, as {@link PciWalker} reads them), its
 * {@code <gpu dev sm>} below, and one {@code <nvlink target count tclass>} per remote device; an
 * AMD GPU's as RCCL's {@code ncclTopoGetXmlFromGpu} writes it, {@code <gpu dev sm gcn>} with
 * {@code <xgmi target count tclass>} links.
 *
 * <p>Shared-device ranks ({@code NCCL4J_SHARED_DEVICE=1}, several ranks on one GPU) have no PCI
 * device of their own: each becomes a {@code <pci>}/{@code <gpu>} of its own beside the real GPU
 * (same parent, the GPU's class, ids, link speed and width, and sm). Ranks of one GPU meet in its
 * memory, which the topology models as an NVSwitch: {@value #SHARED_NVLINKS} NVLinks from each
 * rank's GPU to it, so the search and the transports see NVLink peers (P2P whatever the PCI
 * layout, channels by NVLink bandwidth) rather than GPUs behind a bridge. The real GPU's own
 * element keeps no rank and is trimmed.
 */
final class GpuDevices {
    /** NVML's bus id of a remote NVLink device not visible in this VM. */
    private static final String INVISIBLE = "fffffff:ffff:ff";
    /**
     * NVLinks from a shared-device rank to its GPU's switch: at NCCL 2.10's 22 GB/s a link (SM70
     * and later) the ring search finds 4 channels, which Postset doubles to 8, so that the blocks
     * of 8 ranks (64) are all resident at once on any GPU since Volta (80 SMs or more), as ranks
     * waiting for each other need. NCCL_MIN_NCHANNELS asks for more.
     */
    static final int SHARED_NVLINKS = 4;

    private GpuDevices() {
    }

    /**
     * {@code ncclTopoFillGpu} for a rank whose bus id is its GPU's.
     *
     * @return its {@code <gpu>}
     */
    static XmlNode fill(TopoXml xml, PciWalker walker, GpuDescription d) {
        XmlNode pci = realPci(xml, walker, d);
        XmlNode gpu = gpuNode(xml, pci, d);
        String element = d.linkElement();
        for (GpuDescription.NvLink link : d.nvLinks()) {
            // NCCL 2.10 looks for existing <nvlink> under the <pci> (never there) and so adds the
            // detected counts to a topology file's; they are looked for under the <gpu> here.
            XmlNode nvl = gpu.subKv(element, "target", link.remoteBusId());
            if (nvl == null) {
                nvl = xml.addNode(gpu, element);
                nvl.setAttr("target", link.remoteBusId());
                nvl.setAttrInt("count", link.count());
            }
        }
        for (XmlNode nvl : gpu.subs()) {
            if (nvl.name().equals(element) && nvl.attrIndex("tclass") < 0) {
                nvl.setAttr("tclass", targetClass(walker.sys(), nvl.attr("target"), d));
            }
        }
        return gpu;
    }

    /**
     * A shared-device rank: its own {@code <pci>} (named by its synthetic bus id) beside the GPU's.
     *
     * @param mine whether the rank is the detecting one (it logs the placement)
     * @return its {@code <gpu>}
     */
    static XmlNode fillShared(TopoXml xml, PciWalker walker, DetectedRank r, GpuDescription d, boolean mine) {
        XmlNode real = realPci(xml, walker, d);
        String busId = CNum.int64ToBusId(r.busId());
        XmlNode pci = PciWalker.pciNode(xml, busId);
        if (pci.parent() == null) {
            for (String key : new String[] {"class", "vendor", "device", "subsystem_vendor", "subsystem_device",
                "link_speed", "link_width"}) {
                String v = real.attr(key);
                if (v != null) {
                    PciWalker.setIfUnset(pci, key, v);
                }
            }
            real.parent().attach(pci);
        }
        if (mine) {
            Log.info(Subsys.GRAPH, "rank %d shares GPU %d (%s) with other ranks of this process "
                    + "(NCCL4J_SHARED_DEVICE): placed as PCI device %s beside it", r.rank(), d.dev(), d.busId(), busId);
        }
        return gpuNode(xml, pci, d);
    }

    /**
     * Joins the ranks of each shared GPU through an NVSwitch ({@code <nvlink target count tclass>}
     * under every rank's {@code <gpu>}, its target the real GPU).
     *
     * @param groups the {@code <gpu>} elements of shared-device ranks, by real GPU bus id
     */
    static void linkShared(TopoXml xml, Map<String, List<XmlNode>> groups) {
        groups.forEach((busId, gpus) -> {
            for (XmlNode gpu : gpus) {
                if (gpus.size() > 1 && gpu.subKv("nvlink", "target", busId) == null) {
                    XmlNode nvl = xml.addNode(gpu, "nvlink");
                    nvl.setAttr("target", busId);
                    nvl.setAttrInt("count", SHARED_NVLINKS);
                    nvl.setAttr("tclass", GpuDescription.CLASS_NVSWITCH);
                }
            }
        });
    }

    /** {@code ncclTopoGetPciNode} + class {@code 0x03} + {@code ncclTopoGetXmlFromSys}. */
    private static XmlNode realPci(TopoXml xml, PciWalker walker, GpuDescription d) {
        XmlNode pci = PciWalker.pciNode(xml, d.busId());
        PciWalker.setIfUnset(pci, "class", "0x03");
        walker.fill(pci, xml);
        return pci;
    }

    private static XmlNode gpuNode(TopoXml xml, XmlNode pci, GpuDescription d) {
        XmlNode gpu = pci.sub("gpu");
        if (gpu == null) {
            gpu = xml.addNode(pci, "gpu");
        }
        PciWalker.setIfUnset(gpu, "dev", Integer.toString(d.dev()));
        PciWalker.setIfUnset(gpu, "sm", Integer.toString(d.sm()));
        if (d.amd()) {
            PciWalker.setIfUnset(gpu, "gcn", d.gcn());
        }
        return gpu;
    }

    /**
     * The remote's class from sysfs; a remote without a sysfs directory is what the backend says
     * it is, else (NCCL: "not visible inside this VM") an NVSwitch.
     */
    private static String targetClass(SysFs sys, String target, GpuDescription d) {
        String path = target == null || target.equals(INVISIBLE) ? null : sys.pciPath(target);
        if (path != null) {
            String cls = sys.read(path, "class");
            if (!cls.isEmpty()) {
                return cls;
            }
        }
        for (GpuDescription.NvLink link : d.nvLinks()) {
            if (link.remoteBusId().equals(target) && link.remoteClass() != null) {
                return link.remoteClass();
            }
        }
        return GpuDescription.CLASS_NVSWITCH;
    }
}
