package org.nccl4j.core.topo.detection;

import org.nccl4j.core.topo.xml.CNum;
import org.nccl4j.core.topo.xml.TopoXml;
import org.nccl4j.core.topo.xml.XmlNode;

/**
 * How host-backend ranks appear in the topology: each rank is a {@code <gpu>} (its "device" is
 * a share of the host's CPUs and memory) on its own {@code <pci>} element under the
 * {@code <cpu>} of the NUMA node it runs on, with a PCIe gen3 x16 link (12 GB/s in NCCL's
 * units, the order of a single-threaded memcpy between two processes here). Paths between two
 * host ranks therefore go through their CPU (PHB, or SYS across NUMA nodes), and the search
 * builds rings and trees among them as it does among GPUs behind one host bridge.
 */
final class HostDevices {
    private static final String LINK_SPEED = "8 GT/s";
    private static final String LINK_WIDTH = "16";

    private HostDevices() {
    }

    /**
     * Adds (or completes) the elements of one host rank.
     *
     * @return its {@code <gpu>}
     */
    static XmlNode fill(TopoXml xml, PciWalker walker, DetectedRank r) {
        String busId = CNum.int64ToBusId(r.busId());
        XmlNode pci = PciWalker.pciNode(xml, busId);
        PciWalker.setIfUnset(pci, "class", "0x030000");
        PciWalker.setIfUnset(pci, "link_speed", LINK_SPEED);
        PciWalker.setIfUnset(pci, "link_width", LINK_WIDTH);
        if (pci.parent() == null) {
            XmlNode top = xml.findTag("system");
            String numa = Integer.toString(r.numaNode());
            XmlNode cpu = top.subKv("cpu", "numaid", numa);
            if (cpu == null) {
                cpu = xml.addNode(top, "cpu");
                cpu.setAttr("numaid", numa);
            }
            walker.fillCpu(cpu);
            cpu.attach(pci);
        }
        XmlNode gpu = pci.sub("gpu");
        if (gpu == null) {
            gpu = xml.addNode(pci, "gpu");
        }
        PciWalker.setIfUnset(gpu, "dev", Integer.toString(r.localIndex()));
        PciWalker.setIfUnset(gpu, "sm", "0");
        return gpu;
    }
}
