package org.nccl4j.core.topo.system;

import java.util.ArrayList;
import java.util.List;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.topo.xml.CNum;
import org.nccl4j.core.topo.xml.KvDict;
import org.nccl4j.core.topo.xml.TopoDialect;
import org.nccl4j.core.topo.xml.TopoXml;
import org.nccl4j.core.topo.xml.XmlNode;

/**
 * {@code ncclTopoGetSystemFromXml}: builds the topology graph from a topology XML (CPUs with
 * their PCI trees, GPUs, NICs and NETs, then NVLinks, BCM switch flattening, CPU
 * interconnect and link sorting).
 *
 * <p>RCCL dialect: {@code <xgmi>} elements are handled exactly like {@code <nvlink>} (RCCL's
 * {@code ncclTopoAddXGMI}): NVLink-class links ({@link LinkType#NVL}) of {@code count} × the
 * xGMI width of the GPU's {@code gcn} ({@link Widths#xgmi}).
 */
public final class TopoSystemBuilder {
    /** PEX gen4 switch in base mode, subsystem masked out. */
    private static final long BCM_GEN4 = 0x1000c0101000a000L;
    private static final long BCM_GEN4_MERGED = 0x1000c01010000000L;

    private final TopoSystem system = new TopoSystem();
    private final TopoDialect dialect;

    private TopoSystemBuilder(TopoDialect dialect) {
        this.dialect = dialect;
    }

    /**
     * Builds a system from a topology document in the dialect its {@code system} version names
     * ({@link TopoDialect#of(TopoXml)}: NCCL's for version 1 or none, RCCL's for version 2).
     *
     * @param xml the document
     * @return the system
     */
    public static TopoSystem build(TopoXml xml) {
        return build(xml, TopoDialect.of(xml));
    }

    /**
     * Builds a system from a topology document of either dialect.
     *
     * @param xml     the document
     * @param dialect how GPU links are named and sized
     * @return the system
     * @throws NcclException INTERNAL_ERROR for missing attributes or dangling references
     */
    public static TopoSystem build(TopoXml xml, TopoDialect dialect) {
        XmlNode top = xml.findTag("system");
        if (top == null) {
            throw NcclException.of(Result.INTERNAL_ERROR, "XML topology has no system element", null);
        }
        TopoSystemBuilder b = new TopoSystemBuilder(dialect);
        for (XmlNode n : top.subs()) {
            if (n.name().equals("cpu")) {
                b.addCpu(n);
            }
        }
        b.addNvLinks(top, null);
        b.flattenBcmSwitches();
        b.connectCpus();
        sort(b.system);
        return b.system;
    }

    private void addCpu(XmlNode xmlCpu) {
        int numaId = xmlCpu.attrInt("numaid");
        TopoNode cpu = system.create(NodeType.CPU, numaId);
        cpu.affinity = xmlCpu.attr("affinity");
        cpu.arch = KvDict.CPU_ARCH.toInt(xmlCpu.attrStr("arch"));
        if (cpu.arch == Cpu.ARCH_X86) {
            cpu.vendor = KvDict.CPU_VENDOR.toInt(xmlCpu.attrStr("vendor"));
            if (cpu.vendor == Cpu.VENDOR_INTEL) {
                int familyId = xmlCpu.attrInt("familyid");
                int modelId = xmlCpu.attrInt("modelid");
                cpu.model = (familyId == 6 && modelId >= 0x55) ? Cpu.TYPE_SKL : Cpu.TYPE_BDW;
            } else if (cpu.vendor == Cpu.VENDOR_ZHAOXIN) {
                int familyId = xmlCpu.attrInt("familyid");
                int modelId = xmlCpu.attrInt("modelid");
                if (familyId == 7 && modelId == 0x5B) {
                    cpu.model = Cpu.TYPE_YONGFENG;
                }
            }
        }
        for (XmlNode n : xmlCpu.subs()) {
            if (n.name().equals("pci")) {
                addPci(n, cpu);
            }
            if (n.name().equals("nic")) {
                TopoNode nic = system.find(NodeType.NIC, 0);
                if (nic == null) {
                    nic = system.create(NodeType.NIC, 0);
                    cpu.connect(nic, LinkType.PCI, Widths.LOC);
                    nic.connect(cpu, LinkType.PCI, Widths.LOC);
                }
                addNic(n, nic);
            }
        }
    }

    private void addPci(XmlNode xmlPci, TopoNode parent) {
        int type = KvDict.PCI_CLASS.toInt(xmlPci.attrStr("class"));
        long busId = CNum.busIdToInt64(xmlPci.attrStr("busid"));
        TopoNode node = null;
        XmlNode xmlGpu = xmlPci.sub("gpu");
        if (xmlGpu != null) {
            type = NodeType.GPU;
            if (xmlGpu.attrIndex("rank") == -1) {
                return;
            }
            node = system.create(type, busId);
            node.cudaCompCap = xmlGpu.attrInt("sm");
            node.rank = xmlGpu.attrInt("rank");
            node.dev = xmlGpu.attrInt("dev");
            node.gdrSupport = xmlGpu.attrInt("gdr");
            node.gcn = xmlGpu.attr("gcn");
        }
        XmlNode xmlNic = xmlPci.sub("nic");
        if (xmlNic != null) {
            type = NodeType.NIC;
            // Multi-port NICs share one PCI device: ignore the function number.
            busId &= 0xfffffffffffffff0L;
            TopoNode nic = system.find(type, busId);
            if (nic == null) {
                nic = system.create(type, busId);
                node = nic;
            }
            addNic(xmlNic, nic);
        } else if (type == NodeType.PCI) {
            node = system.create(type, busId);
            String s = xmlPci.attr("vendor");
            if (s != null) {
                node.device += CNum.strtol(s, 0) << 48;
            }
            s = xmlPci.attr("device");
            if (s != null) {
                node.device += CNum.strtol(s, 0) << 32;
            }
            s = xmlPci.attr("subsystem_vendor");
            if (s != null) {
                node.device += CNum.strtol(s, 0) << 16;
            }
            s = xmlPci.attr("subsystem_device");
            if (s != null) {
                node.device += CNum.strtol(s, 0);
            }
            for (XmlNode sub : xmlPci.subs()) {
                addPci(sub, node);
            }
        }
        if (node != null) {
            int width = xmlPci.attrInt("link_width");
            String speedStr = xmlPci.attrStr("link_speed");
            if (width == 0) {
                width = 16;
            }
            int speed = KvDict.PCI_GEN.toInt(speedStr);
            float w = (float) (width * speed / 80.0);
            node.connect(parent, LinkType.PCI, w);
            parent.connect(node, LinkType.PCI, w);
        }
    }

    private void addNic(XmlNode xmlNic, TopoNode nic) {
        for (XmlNode xmlNet : xmlNic.subs()) {
            if (!xmlNet.name().equals("net") || xmlNet.attrIndex("dev") == -1) {
                continue;
            }
            addNet(xmlNet, nic);
        }
    }

    private void addNet(XmlNode xmlNet, TopoNode nic) {
        int dev = xmlNet.attrInt("dev");
        TopoNode net = system.create(NodeType.NET, dev);
        String guid = xmlNet.attr("guid");
        if (guid != null) {
            net.asic = scanHex(guid, net.asic);
        } else {
            net.asic = dev;
        }
        int mbps = intOr(xmlNet, "speed", 0);
        if (mbps <= 0) {
            mbps = 10000; // Some NICs report speed = -1
        }
        net.netWidth = (float) (mbps / 8000.0);
        net.port = intOr(xmlNet, "port", 0);
        net.gdrSupport = intOr(xmlNet, "gdr", 0);
        net.maxChannels = intOr(xmlNet, "maxconn", 32);
        net.collSupport = intOr(xmlNet, "coll", 0);
        nic.connect(net, LinkType.NET, net.netWidth);
        net.connect(nic, LinkType.NET, net.netWidth);
    }

    private static int intOr(XmlNode n, String key, int fallback) {
        String v = n.attr(key);
        return v == null ? fallback : CNum.atoi0(v);
    }

    /** {@code sscanf(s, "0x%lx", &v)}: leaves {@code v} unchanged unless the text starts with 0x and a hex digit. */
    private static long scanHex(String s, long v) {
        if (!s.startsWith("0x")) {
            return v;
        }
        int end = 2;
        while (end < s.length() && Character.digit(s.charAt(end), 16) >= 0) {
            end++;
        }
        if (end == 2) {
            return v;
        }
        String digits = s.substring(2, end).replaceFirst("^0+(?=.)", "");
        return digits.length() > 16 ? -1L : Long.parseUnsignedLong(digits, 16);
    }

    private void addNvLinks(XmlNode node, String parentBusId) {
        if (node.name().equals(dialect.linkElement())) {
            long pBusId = CNum.busIdToInt64(parentBusId == null ? "" : parentBusId);
            TopoNode gpu = system.find(NodeType.GPU, pBusId);
            if (gpu == null) {
                throw NcclException.of(Result.INTERNAL_ERROR, String.format("Add NVLink error : could not find GPU %x", pBusId), null);
            }
            int count = node.attrInt("count");
            int targetType = KvDict.PCI_CLASS.toInt(node.attrStr("tclass"));
            TopoNode remote;
            if (targetType == NodeType.GPU) {
                remote = system.find(NodeType.GPU, CNum.busIdToInt64(node.attrStr("target")));
            } else if (targetType == NodeType.CPU) {
                remote = findLocalCpu(gpu, 0);
            } else if (system.count(NodeType.NVS) == 0) {
                remote = system.create(NodeType.NVS, 0);
            } else {
                remote = system.node(NodeType.NVS, 0);
            }
            if (remote != null) {
                float speed = dialect == TopoDialect.RCCL ? Widths.xgmi(gpu.gcn) : Widths.nvLink(gpu.cudaCompCap);
                float w = count * speed;
                gpu.connect(remote, LinkType.NVL, w);
                if (remote.type != NodeType.GPU) {
                    remote.connect(gpu, LinkType.NVL, w);
                }
            }
        } else {
            String busId = node.attr("busid");
            for (XmlNode s : node.subs()) {
                addNvLinks(s, busId != null ? busId : parentBusId);
            }
        }
    }

    /** NCCL walks PCI links depth first without a visited set; a cycle would overflow its stack. */
    private static TopoNode findLocalCpu(TopoNode node, int depth) {
        if (node.type == NodeType.CPU) {
            return node;
        }
        if (depth > 4 * TopoSystem.MAX_NODES) {
            throw NcclException.of(Result.INTERNAL_ERROR, "findLocalCpu: PCI cycle", null);
        }
        for (TopoLink l : node.links) {
            if (l.type == LinkType.PCI) {
                TopoNode cpu = findLocalCpu(l.remNode, depth + 1);
                if (cpu != null) {
                    return cpu;
                }
            }
        }
        return null;
    }

    /**
     * {@code ncclTopoFlattenBcmSwitches}: a BCM gen4 switch shows up as two levels; its
     * sub-switches are merged into the parent. Like NCCL, the scan restarts at index 1.
     */
    private void flattenBcmSwitches() {
        List<TopoNode> pcis = system.nodes(NodeType.PCI);
        for (int s = 0; s < pcis.size(); s++) {
            TopoNode sw = pcis.get(s);
            long device = sw.device;
            if ((device & 0xfffffffffffff000L) != BCM_GEN4) {
                continue;
            }
            List<Long> subIds = new ArrayList<>();
            for (int l = 0; l < sw.links.size(); l++) {
                TopoNode sub = sw.links.get(l).remNode;
                if (sub.type != NodeType.PCI || sub.device != device) {
                    continue;
                }
                subIds.add(sub.id);
                sw.links.remove(l);
                l--;
            }
            for (long subId : subIds) {
                int index = system.idToIndex(NodeType.PCI, subId);
                TopoNode sub = pcis.get(index);
                for (TopoLink link : sub.links) {
                    TopoNode rem = link.remNode;
                    if (rem == sw) {
                        continue;
                    }
                    sw.links.add(new TopoLink(link.type, link.width, rem));
                    for (TopoLink back : rem.links) {
                        if (back.remNode == sub) {
                            back.remNode = sw;
                            break;
                        }
                    }
                }
                system.remove(NodeType.PCI, index);
            }
            sw.device = BCM_GEN4_MERGED;
            s = 0;
        }
    }

    private void connectCpus() {
        List<TopoNode> cpus = system.nodes(NodeType.CPU);
        for (int n = 0; n < cpus.size(); n++) {
            for (int p = 0; p < cpus.size(); p++) {
                if (n != p) {
                    cpus.get(n).connect(cpus.get(p), LinkType.SYS, interCpuWidth(cpus.get(n)));
                }
            }
        }
    }

    private static float interCpuWidth(TopoNode cpu) {
        if (cpu.arch == Cpu.ARCH_POWER) {
            return Widths.P9;
        }
        if (cpu.arch == Cpu.ARCH_ARM) {
            return Widths.ARM;
        }
        float w = Widths.LOC;
        if (cpu.arch == Cpu.ARCH_X86 && cpu.vendor == Cpu.VENDOR_INTEL) {
            w = cpu.model == Cpu.TYPE_SKL ? Widths.SKL_QPI : Widths.QPI;
        }
        if (cpu.arch == Cpu.ARCH_X86 && cpu.vendor == Cpu.VENDOR_ZHAOXIN) {
            w = cpu.model == Cpu.TYPE_YONGFENG ? Widths.YONGFENG_ZPI : Widths.ZPI;
        }
        return w;
    }

    /**
     * {@code ncclTopoSortSystem}: in every PCI tree, moves the link to the parent last, so links
     * read NVLinks, PCI down, PCI up, SYS.
     *
     * @param system the system
     */
    public static void sort(TopoSystem system) {
        for (TopoNode cpu : system.nodes(NodeType.CPU)) {
            sortRec(cpu, null);
        }
    }

    private static void sortRec(TopoNode node, TopoNode up) {
        if (up != null) {
            int l = 0;
            while (node.links.get(l).remNode != up) {
                l++;
            }
            TopoLink upLink = node.links.remove(l);
            node.links.add(upLink);
        }
        for (int l = 0; l < node.links.size(); l++) {
            TopoLink link = node.links.get(l);
            if (link.type == LinkType.PCI && link.remNode != up) {
                sortRec(link.remNode, node);
            }
        }
    }
}
