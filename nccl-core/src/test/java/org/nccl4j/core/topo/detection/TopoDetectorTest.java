package org.nccl4j.core.topo.detection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.topo.system.NodeType;
import org.nccl4j.core.topo.system.TopoSystemBuilder;
import org.nccl4j.core.topo.xml.TopoDialect;
import org.nccl4j.core.topo.xml.TopoXml;
import org.nccl4j.core.topo.xml.XmlWriter;
import org.nccl4j.net.spi.NetProperties;

class TopoDetectorTest {
    @TempDir
    Path dir;

    @Test
    void cpuIdentityConvertsTheExtendedFamilyAsCpuidDoes() {
        assertEquals(new CpuIdentity("x86_64", "AuthenticAMD", 143, 49),
                CpuIdentity.parse("vendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 49\n", "amd64"));
        assertEquals(new CpuIdentity("x86_64", "GenuineIntel", 6, 85),
                CpuIdentity.parse("vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n", "x86_64"));
        assertEquals("arm64", CpuIdentity.parse("", "aarch64").arch());
    }

    @Test
    void detectsSwitchesNicsAndHostRanksFromSysfs() throws Exception {
        Path root = FakeSysfs.create(dir.resolve("root"));
        SysFs sys = new SysFs(root);
        TopoDetector d = new TopoDetector(sys, CpuIdentity.parse(sys.text("/proc/cpuinfo"), "amd64"));
        long base = (1L << 62) | (4242L << 20);
        List<DetectedRank> ranks = List.of(
                new DetectedRank(0, 7, base, "host", 0, 0, false),
                new DetectedRank(1, 7, base | 1, "host", 1, 0, false),
                new DetectedRank(2, 8, base | 2, "host", 0, 0, false));
        List<NetProperties> nets = List.of(
                new NetProperties("mlx5_0", FakeSysfs.NIC0, 0x1234L, 1, 100000, 1, 65536, 0f, 1),
                new NetProperties("eth0", FakeSysfs.VIRTIO, 0L, 1, 10000, 0, 65536, 0f, 1),
                new NetProperties("mlx5_1", FakeSysfs.NIC1, 0x5678L, 1, 100000, 1, 65536, 0f, 1));
        Config config = Config.of(new Properties(), Map.of(), dir.resolve("none.conf"));
        TopoXml xml = d.detect(config, 0, ranks, nets);
        String expected = """
                <system version="1">
                  <cpu numaid="0" affinity="0000000f" arch="x86_64" vendor="AuthenticAMD" familyid="143" modelid="49">
                    <pci busid="40000001092:00:00.0" class="0x030000" link_speed="8 GT/s" link_width="16">
                      <gpu dev="0" sm="0" rank="0" gdr="0"/>
                    </pci>
                    <pci busid="40000001092:00:00.1" class="0x030000" link_speed="8 GT/s" link_width="16">
                      <gpu dev="1" sm="0" rank="1" gdr="0"/>
                    </pci>
                    <pci busid="0000:01:00.0" class="0x060400" vendor="0x15b3" device="0x101b" link_speed="16.0 GT/s PCIe" link_width="16">
                      <pci busid="0000:03:00.0" class="0x020000" vendor="0x15b3" device="0x101b" link_speed="8.0 GT/s PCIe" link_width="16">
                        <nic>
                          <net name="mlx5_0" dev="0" speed="100000" port="1" guid="0x1234" maxconn="65536" gdr="0"/>
                        </nic>
                      </pci>
                      <pci busid="0000:04:00.0" class="0x020000" vendor="0x15b3" device="0x101b" link_speed="8.0 GT/s PCIe" link_width="8">
                        <nic>
                          <net name="mlx5_1" dev="2" speed="100000" port="1" guid="0x5678" maxconn="65536" gdr="0"/>
                        </nic>
                      </pci>
                    </pci>
                    <nic>
                      <net name="eth0" dev="1" speed="10000" port="0" guid="0x0" maxconn="65536" gdr="0"/>
                    </nic>
                  </cpu>
                </system>
                """;
        assertEquals(expected, XmlWriter.toText(xml));
    }

    @Test
    void readsAnRcclTopoFileInRcclDialect() throws Exception {
        Path root = FakeSysfs.create(dir.resolve("root"));
        SysFs sys = new SysFs(root);
        TopoDetector d = new TopoDetector(sys, CpuIdentity.parse(sys.text("/proc/cpuinfo"), "amd64"));
        Path file = Path.of(TopoDetectorTest.class.getResource("/topo/rccl/topo_4p1h.xml").toURI());
        Config config = Config.of(new Properties(), Map.of("NCCL_TOPO_FILE", file.toString()), dir.resolve("none.conf"));
        TopoXml xml = d.detect(config, 0, List.of(new DetectedRank(0, 7, (1L << 62) | (4242L << 20), "host", 0, 0, false)),
                List.of());
        assertEquals(TopoDialect.RCCL, TopoDialect.of(xml));
        // The file's <xgmi> links were read (NCCL's dialect drops them as unknown elements); its
        // GPUs are not this host's ranks, so trimming removed them, and the system still builds.
        assertNotNull(xml.findTag("xgmi"));
        assertEquals(1, TopoSystemBuilder.build(xml).count(NodeType.GPU));
    }

    @Test
    void detectsThisMachineWithTwoHostRanks() {
        long base = (1L << 62) | (ProcessHandle.current().pid() << 20);
        int numa = org.nccl4j.core.host.HostIdentity.numaNode();
        List<DetectedRank> ranks = List.of(new DetectedRank(0, 1, base, "host", 0, numa, false),
                new DetectedRank(1, 1, base | 1, "host", 1, numa, false));
        Config config = Config.of(new Properties(), Map.of(), dir.resolve("none.conf"));
        TopoXml xml = TopoDetector.forHost().detect(config, 0, ranks, List.of());
        var cpu = xml.findTagKv("cpu", "numaid", Integer.toString(numa));
        assertEquals("x86_64".equals(CpuIdentity.arch(System.getProperty("os.arch"))), cpu.attr("vendor") != null,
                XmlWriter.toText(xml));
        assertEquals(CpuIdentity.arch(System.getProperty("os.arch")), cpu.attr("arch"));
        assertEquals(2, cpu.subs().stream().filter(n -> n.name().equals("pci")).count(), XmlWriter.toText(xml));
        var system = org.nccl4j.core.topo.system.TopoSystemBuilder.build(xml);
        assertEquals(2, system.count(org.nccl4j.core.topo.system.NodeType.GPU));
        assertEquals(1, system.count(org.nccl4j.core.topo.system.NodeType.CPU));
    }
}
