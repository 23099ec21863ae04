package org.nccl4j.core.topo.detection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.GpuDescription;
import org.nccl4j.core.device.GpuDescription.NvLink;
import org.nccl4j.core.device.LocalDevice;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.topo.sim.TopoSimulator;
import org.nccl4j.core.topo.tuning.TuningProfile;
import org.nccl4j.core.topo.xml.CNum;
import org.nccl4j.core.topo.xml.TopoXml;
import org.nccl4j.core.topo.xml.XmlWriter;

/**
 * GPU ranks in detection: the {@code <pci>}/{@code <gpu>}/{@code <nvlink>} elements NCCL's
 * {@code ncclTopoFillGpu} builds, from recorded GPU descriptions (what the CUDA backend reads
 * from NVML and the driver) on a sysfs tree of a GPU server.
 */
class GpuTopoDetectorTest {
    private static final String CPU = "  <cpu numaid=\"0\" affinity=\"000000ff\" arch=\"x86_64\" vendor=\"GenuineIntel\" "
            + "familyid=\"6\" modelid=\"143\">\n";
    private static final String SWITCH = "    <pci busid=\"0000:01:00.0\" class=\"0x060400\" vendor=\"0x1000\" "
            + "device=\"0xc050\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n";

    @TempDir
    Path dir;

    /** A backend of recorded GPU descriptions, keyed by the bus ids its ranks publish. */
    private record RecordedGpus(Map<Long, GpuDescription> gpus) implements DeviceBackend {
        @Override
        public String name() {
            return "cuda";
        }

        @Override
        public int deviceCount() {
            return gpus.size();
        }

        @Override
        public LocalDevice open(Config config) {
            throw new UnsupportedOperationException("detection only");
        }

        @Override
        public Optional<GpuDescription> describeGpu(long busId) {
            return Optional.ofNullable(gpus.get(busId));
        }
    }

    private TopoXml detect(List<DetectedRank> ranks, Map<Long, GpuDescription> gpus) throws Exception {
        SysFs sys = new SysFs(FakeGpuSysfs.create(dir.resolve("root")));
        TopoDetector d = new TopoDetector(sys, CpuIdentity.parse(sys.text("/proc/cpuinfo"), "amd64"));
        Config config = Config.of(new Properties(), Map.of(), dir.resolve("none.conf"));
        return d.detect(config, 0, ranks, List.of(), new RecordedGpus(gpus));
    }

    private static DetectedRank rank(int rank, String busId, int dev) {
        return new DetectedRank(rank, 7, CNum.busIdToInt64(busId), "cuda", dev, 0, false);
    }

    private static String gpuPci(String busId) {
        return "      <pci busid=\"" + busId + "\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2335\" "
                + "link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n";
    }

    @Test
    void onePcieGpuSitsAtItsSysfsPlaceWithItsComputeCapability() throws Exception {
        GpuDescription g = new GpuDescription(FakeGpuSysfs.GPU0, 0, 90, List.of());
        TopoXml xml = detect(List.of(rank(0, FakeGpuSysfs.GPU0, 0)), Map.of(CNum.busIdToInt64(FakeGpuSysfs.GPU0), g));
        assertEquals("<system version=\"1\">\n" + CPU + SWITCH + gpuPci(FakeGpuSysfs.GPU0)
                + "        <gpu dev=\"0\" sm=\"90\" rank=\"0\" gdr=\"0\"/>\n"
                + "      </pci>\n    </pci>\n  </cpu>\n</system>\n", XmlWriter.toText(xml));
    }

    @Test
    void twoGpusWithNvLinksToEachOther() throws Exception {
        GpuDescription g0 = new GpuDescription(FakeGpuSysfs.GPU0, 0, 90,
                List.of(new NvLink(FakeGpuSysfs.GPU1, GpuDescription.CLASS_GPU, 4)));
        GpuDescription g1 = new GpuDescription(FakeGpuSysfs.GPU1, 1, 90,
                List.of(new NvLink(FakeGpuSysfs.GPU0, GpuDescription.CLASS_GPU, 4)));
        TopoXml xml = detect(List.of(rank(0, FakeGpuSysfs.GPU0, 0), rank(1, FakeGpuSysfs.GPU1, 1)),
                Map.of(CNum.busIdToInt64(FakeGpuSysfs.GPU0), g0, CNum.busIdToInt64(FakeGpuSysfs.GPU1), g1));
        assertEquals("<system version=\"1\">\n" + CPU + SWITCH + gpuPci(FakeGpuSysfs.GPU0)
                + "        <gpu dev=\"0\" sm=\"90\" rank=\"0\" gdr=\"0\">\n"
                + "          <nvlink target=\"0000:04:00.0\" count=\"4\" tclass=\"0x030200\"/>\n"
                + "        </gpu>\n      </pci>\n" + gpuPci(FakeGpuSysfs.GPU1)
                + "        <gpu dev=\"1\" sm=\"90\" rank=\"1\" gdr=\"0\">\n"
                + "          <nvlink target=\"0000:03:00.0\" count=\"4\" tclass=\"0x030200\"/>\n"
                + "        </gpu>\n      </pci>\n    </pci>\n  </cpu>\n</system>\n", XmlWriter.toText(xml));
        String out = simulate(xml);
        // Four links make one NVL link of 4 x NCCL 2.10's per-link speed; the ring runs over it.
        assertTrue(out.contains("PATH GPU/3000 -> GPU/4000 count=1 width=88 type=NVL\n"), out);
        assertTrue(out.contains("GRAPH rank=0 name=RING pattern=4 nChannels=4 speedIntra=22 speedInter=22 "
                + "typeIntra=NVL"), out);
        assertTrue(out.contains("RANK 1 nNodes=1 node=0 localRanks=2 nChannels=8\n"), out);
        // NCCL_P2P_DISABLE / NCCL_P2P_LEVEL (paths.cc's p2pLevel): without P2P the GPUs talk through their CPU.
        for (Map<String, String> env : List.of(Map.of("NCCL_P2P_DISABLE", "1"), Map.of("NCCL_P2P_LEVEL", "LOC"))) {
            String off = simulate(xml, env);
            assertTrue(off.contains("PATH GPU/3000 -> GPU/4000 count=4 width=12 type=PHB\n"), env + "\n" + off);
        }
    }

    @Test
    void nvLinksToNvSwitchesTakeTheirClassFromSysfsElseTheBackendElseNvSwitch() throws Exception {
        GpuDescription g = new GpuDescription(FakeGpuSysfs.GPU0, 0, 90, List.of(
                new NvLink(FakeGpuSysfs.NVSWITCH, null, 6),
                new NvLink("0000:06:00.0", GpuDescription.CLASS_NVSWITCH, 6),
                new NvLink("fffffff:ffff:ff", null, 6)));
        TopoXml xml = detect(List.of(new DetectedRank(0, 7, CNum.busIdToInt64(FakeGpuSysfs.GPU0), "cuda", 0, 0, true)),
                Map.of(CNum.busIdToInt64(FakeGpuSysfs.GPU0), g));
        assertEquals("<system version=\"1\">\n" + CPU + SWITCH + gpuPci(FakeGpuSysfs.GPU0)
                + "        <gpu dev=\"0\" sm=\"90\" rank=\"0\" gdr=\"1\">\n"
                + "          <nvlink target=\"0000:05:00.0\" count=\"6\" tclass=\"0x068000\"/>\n"
                + "          <nvlink target=\"0000:06:00.0\" count=\"6\" tclass=\"0x068000\"/>\n"
                + "          <nvlink target=\"fffffff:ffff:ff\" count=\"6\" tclass=\"0x068000\"/>\n"
                + "        </gpu>\n      </pci>\n    </pci>\n  </cpu>\n</system>\n", XmlWriter.toText(xml));
        var system = org.nccl4j.core.topo.system.TopoSystemBuilder.build(xml);
        assertEquals(1, system.count(org.nccl4j.core.topo.system.NodeType.NVS));
    }

    @Test
    void sharedDeviceRanksSitBesideTheirGpuAndTheSearchConnectsThem() throws Exception {
        GpuDescription g = new GpuDescription(FakeGpuSysfs.GPU1, 1, 90, List.of());
        long base = (1L << 62) | (4242L << 20);
        List<DetectedRank> ranks = new ArrayList<>();
        Map<Long, GpuDescription> gpus = new java.util.HashMap<>();
        for (int r = 0; r < 4; r++) {
            ranks.add(new DetectedRank(r, 7, base | r, "cuda", 1, 0, false));
            gpus.put(base | r, g);
        }
        TopoXml xml = detect(ranks, gpus);
        StringBuilder want = new StringBuilder("<system version=\"1\">\n" + CPU + SWITCH);
        for (int r = 0; r < 4; r++) {
            want.append(gpuPci("40000001092:00:00." + r))
                    .append("        <gpu dev=\"1\" sm=\"90\" rank=\"").append(r).append("\" gdr=\"0\">\n");
            want.append("          <nvlink target=\"").append(FakeGpuSysfs.GPU1)
                    .append("\" count=\"4\" tclass=\"0x068000\"/>\n");
            want.append("        </gpu>\n      </pci>\n");
        }
        want.append("    </pci>\n  </cpu>\n</system>\n");
        assertEquals(want.toString(), XmlWriter.toText(xml));

        // As NCCL would for four GPUs on an NVSwitch, 4 links each (88 GB/s): NVLink paths whatever
        // the PCI layout (so P2P), one ring of 4 channels at 22 GB/s, doubled by Postset.
        String out = simulate(xml);
        assertTrue(out.contains("PATH GPU/4000000109200000 -> GPU/4000000109200003 count=2 width=88 type=NVL\n"), out);
        assertTrue(out.contains("GRAPH rank=0 name=RING pattern=4 nChannels=4 speedIntra=22 speedInter=22 "
                + "typeIntra=NVL"), out);
        assertTrue(out.contains("RANK 3 nNodes=1 node=0 localRanks=4 nChannels=8\n"), out);
    }

    @Test
    void amdGpusAreWrittenInRcclsDialectWithTheirXgmiLinks() throws Exception {
        GpuDescription g0 = new GpuDescription(FakeGpuSysfs.GPU0, 0, 90, "gfx90a",
                List.of(new NvLink(FakeGpuSysfs.GPU1, GpuDescription.CLASS_GPU, 2)));
        GpuDescription g1 = new GpuDescription(FakeGpuSysfs.GPU1, 1, 90, "gfx90a",
                List.of(new NvLink(FakeGpuSysfs.GPU0, GpuDescription.CLASS_GPU, 2)));
        TopoXml xml = detect(List.of(rank(0, FakeGpuSysfs.GPU0, 0), rank(1, FakeGpuSysfs.GPU1, 1)),
                Map.of(CNum.busIdToInt64(FakeGpuSysfs.GPU0), g0, CNum.busIdToInt64(FakeGpuSysfs.GPU1), g1));
        assertEquals("<system version=\"2\">\n" + CPU + SWITCH + gpuPci(FakeGpuSysfs.GPU0)
                + "        <gpu dev=\"0\" sm=\"90\" gcn=\"gfx90a\" rank=\"0\" gdr=\"0\">\n"
                + "          <xgmi target=\"0000:04:00.0\" count=\"2\" tclass=\"0x030200\"/>\n"
                + "        </gpu>\n      </pci>\n" + gpuPci(FakeGpuSysfs.GPU1)
                + "        <gpu dev=\"1\" sm=\"90\" gcn=\"gfx90a\" rank=\"1\" gdr=\"0\">\n"
                + "          <xgmi target=\"0000:03:00.0\" count=\"2\" tclass=\"0x030200\"/>\n"
                + "        </gpu>\n      </pci>\n    </pci>\n  </cpu>\n</system>\n", XmlWriter.toText(xml));
        // RCCL's ncclTopoAddXGMI: an NVLink-class link of 2 x gfx90a's xGMI width (36).
        String out = simulate(xml);
        assertTrue(out.contains("PATH GPU/3000 -> GPU/4000 count=1 width=72 type=NVL\n"), out);
    }

    /** init's graph code on the XML, one node, NCCL's GPU tuning. */
    private String simulate(TopoXml xml) throws Exception {
        return simulate(xml, Map.of());
    }

    private String simulate(TopoXml xml, Map<String, String> env) throws Exception {
        Path file = Files.createTempFile(dir, "topo", ".xml");
        Files.writeString(file, XmlWriter.toText(xml));
        StringBuilder out = new StringBuilder();
        TopoSimulator.run(file, 1, env, out, TopoSimulator.SearchMode.EVERY_RANK, TuningProfile.NCCL_GPU);
        return out.toString();
    }
}
