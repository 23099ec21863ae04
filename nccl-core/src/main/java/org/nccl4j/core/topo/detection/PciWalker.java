package org.nccl4j.core.topo.detection;

import org.nccl4j.core.topo.xml.CNum;
import org.nccl4j.core.topo.xml.TopoXml;
import org.nccl4j.core.topo.xml.XmlNode;

/**
 * NCCL's sysfs walk ({@code ncclTopoGetXmlFromSys}, {@code ncclTopoGetXmlFromCpu},
 * {@code ncclTopoGetPciNode}): fills a {@code <pci>} element from its sysfs directory, then
 * finds its parent by cutting the real path: every switch costs two levels (upstream and
 * downstream port; the upstream one is kept), and a component that does not look like a bus id
 * is the CPU root complex.
 */
final class PciWalker {
    private final SysFs sys;
    private final CpuIdentity cpu;

    PciWalker(SysFs sys, CpuIdentity cpu) {
        this.sys = sys;
        this.cpu = cpu;
    }

    /** {@code ncclTopoGetPciNode}: the {@code <pci busid>} anywhere, else a new parentless one. */
    static XmlNode pciNode(TopoXml xml, String busId) {
        XmlNode n = xml.findTagKv("pci", "busid", busId);
        if (n == null) {
            n = xml.addNode(null, "pci");
            n.setAttr("busid", busId);
        }
        return n;
    }

    /** {@code xmlSetAttrIfUnset} / {@code xmlInitAttr*}. */
    static void setIfUnset(XmlNode node, String key, String value) {
        if (node.attrIndex(key) < 0) {
            node.setAttr(key, value);
        }
    }

    /** {@code ncclTopoGetXmlFromSys}. */
    void fill(XmlNode pci, TopoXml xml) {
        String busId = pci.attr("busid");
        String path = busId == null ? null : sys.pciPath(busId);
        if (path != null) {
            setFromSys(pci, path, "class", "class");
            for (String key : new String[] {"vendor", "device", "subsystem_vendor", "subsystem_device"}) {
                if (pci.attrIndex(key) < 0) {
                    setFromSys(pci, path, key, key);
                }
            }
        }
        if (pci.attrIndex("link_speed") < 0) {
            pci.setAttr("link_speed", path == null ? "" : linkSpeed(path));
        }
        if (pci.attrIndex("link_width") < 0) {
            if (path == null) {
                pci.setAttr("link_width", "");
            } else {
                int dev = (int) CNum.strtol(sys.read(path, "max_link_width"), 0);
                int port = (int) CNum.strtol(sys.read(path, "../max_link_width"), 0);
                pci.setAttrInt("link_width", Math.min(dev, port));
            }
        }
        XmlNode parent = pci.parent();
        if (parent == null) {
            parent = path != null ? parentFromPath(xml, path) : unknownCpu(xml);
            parent.attach(pci);
        }
        if (parent.name().equals("pci")) {
            fill(parent, xml);
        } else if (parent.name().equals("cpu")) {
            fillCpu(parent);
        }
    }

    /** The device's speed unless its port is slower (as NCCL compares the two {@code %f GT/s} values). */
    private String linkSpeed(String path) {
        String dev = sys.read(path, "max_link_speed");
        String port = sys.read(path, "../max_link_speed");
        float devSpeed = gts(dev);
        // An unreadable port speed (device right under a root complex) keeps the device's own, as RCCL does.
        float portSpeed = port.isEmpty() ? devSpeed : gts(port);
        return portSpeed < devSpeed ? port : dev;
    }

    private static float gts(String s) {
        int space = s.indexOf(' ');
        try {
            return Float.parseFloat(space < 0 ? s : s.substring(0, space));
        } catch (NumberFormatException e) {
            return 0f;
        }
    }

    private XmlNode parentFromPath(TopoXml xml, String fullPath) {
        String numa = sys.read(fullPath, "numa_node");
        String path = fullPath;
        int slashes = 0;
        for (int off = path.length() - 1; off > 0; off--) {
            if (path.charAt(off) != '/') {
                continue;
            }
            slashes++;
            path = path.substring(0, off);
            String last = path.substring(path.lastIndexOf('/') + 1);
            if (!looksLikeBdf(last)) {
                XmlNode top = xml.findTag("system");
                XmlNode cpuNode = top.subKv("cpu", "numaid", numa);
                if (cpuNode == null) {
                    cpuNode = xml.addNode(top, "cpu");
                    cpuNode.setAttr("numaid", numa);
                }
                return cpuNode;
            }
            if (slashes == 2) {
                return pciNode(xml, last);
            }
        }
        return unknownCpu(xml);
    }

    /** No sysfs information: the device hangs off CPU {@code numaid="-1"}. */
    private XmlNode unknownCpu(TopoXml xml) {
        XmlNode cpuNode = xml.findTagKv("cpu", "numaid", "-1");
        if (cpuNode == null) {
            cpuNode = xml.addNode(xml.findTag("system"), "cpu");
            cpuNode.setAttr("numaid", "-1");
            fillCpu(cpuNode);
        }
        return cpuNode;
    }

    /** {@code checkBDFFormat}: only the separators and the first digit are really checked in NCCL. */
    static boolean looksLikeBdf(String s) {
        return s.length() > 10 && s.charAt(4) == ':' && s.charAt(7) == ':' && s.charAt(10) == '.'
                && Character.digit(s.charAt(0), 16) >= 0;
    }

    /** {@code ncclTopoGetXmlFromCpu}: affinity from the NUMA node's cpumap, then arch/vendor/family/model. */
    void fillCpu(XmlNode cpuNode) {
        if (cpuNode.attrIndex("affinity") < 0) {
            String numa = cpuNode.attr("numaid");
            if (numa != null) {
                setFromSys(cpuNode, "/sys/devices/system/node/node" + numa, "cpumap", "affinity");
            }
        }
        if (cpuNode.attrIndex("arch") < 0) {
            cpuNode.setAttr("arch", cpu.arch());
        }
        if ("x86_64".equals(cpu.arch())) {
            if (cpuNode.attrIndex("vendor") < 0 && cpu.vendor() != null) {
                cpuNode.setAttr("vendor", cpu.vendor());
            }
            if (cpuNode.attrIndex("familyid") < 0) {
                cpuNode.setAttrInt("familyid", cpu.familyId());
                cpuNode.setAttrInt("modelid", cpu.modelId());
            }
        }
    }

    private void setFromSys(XmlNode node, String path, String file, String attr) {
        String v = sys.read(path, file);
        if (!v.isEmpty()) {
            node.setAttr(attr, v);
        }
    }

    /** @return the filesystem this walker reads */
    SysFs sys() {
        return sys;
    }
}
