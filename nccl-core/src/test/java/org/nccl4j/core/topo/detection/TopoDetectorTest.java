package org.nccl4j.core.topo.detection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nccl4j.core.param.Config;
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
                    <pci busid="40000001092:00:00.0" class="0x030000" link_speed="8.0 GT/s PCIe" link_width="16">
                      <gpu dev="0" sm="0" rank="0" gdr="0"/>
                    </pci>
                    <pci busid="40000001092:00:00.1" class="0x030000" link_speed="8.0 GT/s PCIe" link_width="16">
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
}
