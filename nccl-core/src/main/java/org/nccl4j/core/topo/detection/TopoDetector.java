package org.nccl4j.core.topo.detection;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.GpuDescription;
import org.nccl4j.core.device.HostBackend;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.topo.xml.CNum;
import org.nccl4j.core.topo.xml.TopoXml;
import org.nccl4j.core.topo.xml.XmlNode;
import org.nccl4j.core.topo.xml.XmlReader;
import org.nccl4j.core.topo.xml.XmlWriter;
import org.nccl4j.net.spi.NetProperties;

/**
 * {@code ncclTopoGetSystem} up to the XML: {@code NCCL_TOPO_FILE} (or NVIDIA's default
 * virtual topology file, silently), then every rank of this host from its device backend, then
 * every device of the selected network, trimmed to the kept branches and optionally dumped
 * ({@code NCCL_TOPO_DUMP_FILE}). The caller builds the system from the returned XML.
 */
public final class TopoDetector {
    /** Where NVIDIA's topology daemon leaves a VM's topology (read when present, as NCCL 2.10 does). */
    static final String DEFAULT_TOPO_FILE = "/var/run/nvidia-topologyd/virtualTopology.xml";
    /** {@code NCCL_PTR_CUDA}. */
    private static final int PTR_CUDA = 2;

    private final SysFs sys;
    private final CpuIdentity cpu;

    /**
     * @param sys the filesystem to read
     * @param cpu this host's CPU identity
     */
    public TopoDetector(SysFs sys, CpuIdentity cpu) {
        this.sys = sys;
        this.cpu = cpu;
    }

    /** @return a detector of this host */
    public static TopoDetector forHost() {
        SysFs sys = SysFs.host();
        return new TopoDetector(sys, CpuIdentity.parse(sys.text("/proc/cpuinfo"), System.getProperty("os.arch")));
    }

    /**
     * Detection for host ranks only (no GPU backend to describe devices).
     *
     * @param config parameters
     * @param rank   this rank
     * @param ranks  every rank (AllGather1)
     * @param nets   the selected network's devices, in device order
     * @return the trimmed topology XML of this host
     */
    public TopoXml detect(Config config, int rank, List<DetectedRank> ranks, List<NetProperties> nets) {
        return detect(config, rank, ranks, nets, new HostBackend());
    }

    /**
     * @param config  parameters
     * @param rank    this rank
     * @param ranks   every rank (AllGather1)
     * @param nets    the selected network's devices, in device order
     * @param backend this process's device backend: it describes the GPUs of its ranks
     * @return the trimmed topology XML of this host
     */
    public TopoXml detect(Config config, int rank, List<DetectedRank> ranks, List<NetProperties> nets,
                          DeviceBackend backend) {
        TopoXml xml = load(config);
        if (xml.root() == null) {
            xml.addNode(null, "system").setAttrInt("version", TopoXml.TOPO_XML_VERSION);
        }
        PciWalker walker = new PciWalker(sys, cpu);
        long myHost = ranks.get(rank).hostHash();
        Map<String, List<XmlNode>> shared = new LinkedHashMap<>();
        for (DetectedRank r : ranks) {
            if (r.hostHash() != myHost) {
                continue;
            }
            XmlNode gpu = fillRank(xml, walker, r, backend, r.rank() == rank, shared);
            gpu.setAttrInt("keep", 1);
            gpu.setAttrInt("rank", r.rank());
            PciWalker.setIfUnset(gpu, "gdr", r.gdr() ? "1" : "0");
        }
        GpuDevices.linkShared(xml, shared);
        for (int n = 0; n < nets.size(); n++) {
            NetProperties p = nets.get(n);
            XmlNode net = fillNet(xml, walker, p.pciPath(), p.name());
            net.setAttrInt("keep", 1);
            net.setAttrInt("dev", n);
            PciWalker.setIfUnset(net, "speed", Integer.toString(p.speed()));
            PciWalker.setIfUnset(net, "port", Integer.toString(p.port()));
            PciWalker.setIfUnset(net, "guid", "0x" + Long.toHexString(p.guid()));
            PciWalker.setIfUnset(net, "maxconn", Integer.toString(p.maxComms()));
            PciWalker.setIfUnset(net, "gdr", (p.ptrSupport() & PTR_CUDA) != 0 ? "1" : "0");
        }
        xml.trim();
        String dump = config.string(Params.TOPO_DUMP_FILE);
        if (dump != null && rank == config.integer(Params.TOPO_DUMP_FILE_RANK)) {
            Log.info(Subsys.ENV, "NCCL_TOPO_DUMP_FILE set by environment to %s", dump);
            XmlWriter.write(Path.of(dump), xml);
        }
        return xml;
    }

    /**
     * A rank's {@code <gpu>}: its GPU's as the backend describes it, or a host rank's; a
     * shared-device rank's is also added to {@code shared} under its real GPU's bus id.
     */
    private static XmlNode fillRank(TopoXml xml, PciWalker walker, DetectedRank r, DeviceBackend backend,
                                    boolean mine, Map<String, List<XmlNode>> shared) {
        if (HostBackend.NAME.equals(r.backend())) {
            return HostDevices.fill(xml, walker, r);
        }
        Optional<GpuDescription> d = r.backend().equals(backend.name()) ? backend.describeGpu(r.busId())
                : Optional.empty();
        if (d.isEmpty()) {
            if (mine) {
                Log.info(Subsys.GRAPH, "rank %d: %s device %s is not a GPU its backend can describe here: "
                        + "placed like a host rank", r.rank(), r.backend(), CNum.int64ToBusId(r.busId()));
            }
            return HostDevices.fill(xml, walker, r);
        }
        GpuDescription gpu = d.get();
        if (gpu.amd()) {
            // AMD GPUs: RCCL's dialect, whose <xgmi> links the system builder reads as RCCL does.
            xml.root().setAttrInt("version", TopoXml.RCCL_TOPO_XML_VERSION);
        }
        if (CNum.busIdToInt64(gpu.busId()) == r.busId()) {
            return GpuDevices.fill(xml, walker, gpu);
        }
        XmlNode node = GpuDevices.fillShared(xml, walker, r, gpu, mine);
        shared.computeIfAbsent(gpu.busId(), k -> new ArrayList<>()).add(node);
        return node;
    }

    private static TopoXml load(Config config) {
        String file = config.string(Params.TOPO_FILE);
        boolean warn = file != null;
        if (file == null) {
            file = DEFAULT_TOPO_FILE;
        } else {
            Log.info(Subsys.ENV, "NCCL_TOPO_FILE set by environment to %s", file);
        }
        Path p = Path.of(file);
        if (!Files.isReadable(p)) {
            if (warn) {
                Log.warn("Could not open XML topology file %s : %s", file,
                        Files.exists(p) ? "Permission denied" : "No such file or directory");
            }
            return new TopoXml();
        }
        Log.info(Subsys.GRAPH, "Loading topology file %s", file);
        // NCCL's or RCCL's dialect, as the file's <system version> says.
        return XmlReader.readTopology(p);
    }

    /** {@code ncclTopoFillNet}: a NIC on its PCI device, or on the first CPU when it is virtual. */
    private XmlNode fillNet(TopoXml xml, PciWalker walker, String pciPath, String name) {
        XmlNode existing = xml.findTagKv("net", "name", name);
        if (existing != null) {
            return existing;
        }
        String path = pciPath;
        if (path != null) {
            String subsystem = sys.subsystem(path);
            if (!subsystem.equals("pci")) {
                Log.info(Subsys.GRAPH, "Topology detection: network path %s is not a PCI device (%s). "
                        + "Attaching to first CPU", path, subsystem);
                path = null;
            }
        }
        XmlNode parent;
        if (path != null) {
            parent = PciWalker.pciNode(xml, path.substring(path.lastIndexOf('/') + 1));
            PciWalker.setIfUnset(parent, "class", "0x02");
            walker.fill(parent, xml);
        } else {
            parent = xml.findTag("cpu");
            if (parent == null) {
                parent = xml.addNode(xml.findTag("system"), "cpu");
                parent.setAttr("numaid", "-1");
                walker.fillCpu(parent);
            }
        }
        XmlNode nic = parent.sub("nic");
        if (nic == null) {
            nic = xml.addNode(parent, "nic");
        }
        XmlNode net = xml.addNode(nic, "net");
        net.setAttr("name", name);
        return net;
    }
}
