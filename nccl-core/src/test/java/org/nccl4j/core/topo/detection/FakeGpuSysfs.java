package org.nccl4j.core.topo.detection;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A sysfs tree of a small GPU server: root port 0000:00:01.0, a PCIe gen5 switch (upstream
 * 0000:01:00.0, downstream ports 0000:02:00.0 and 0000:02:01.0) with an H200-like GPU under each
 * (0000:03:00.0, 0000:04:00.0), an NVSwitch 0000:05:00.0 under root port 0000:00:02.0, NUMA
 * node 0 with CPUs 0-7, an Intel CPU.
 */
final class FakeGpuSysfs {
    static final String GPU0 = "0000:03:00.0";
    static final String GPU1 = "0000:04:00.0";
    static final String NVSWITCH = "0000:05:00.0";

    private FakeGpuSysfs() {
    }

    static Path create(Path root) throws IOException {
        String sw = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
        Files.createDirectories(root.resolve("sys/devices/pci0000:00/pci_bus/0000:00"));
        FakeSysfs.device(root.resolve("sys/devices/pci0000:00/0000:00:01.0"), "0x060400", "0x8086", "0x352a",
                "32.0 GT/s PCIe", "16");
        FakeSysfs.device(root.resolve(sw), "0x060400", "0x1000", "0xc050", "32.0 GT/s PCIe", "16");
        FakeSysfs.device(root.resolve(sw + "/0000:02:00.0"), "0x060400", "0x1000", "0xc050", "32.0 GT/s PCIe", "16");
        FakeSysfs.device(root.resolve(sw + "/0000:02:01.0"), "0x060400", "0x1000", "0xc050", "32.0 GT/s PCIe", "16");
        FakeSysfs.device(root.resolve(sw + "/0000:02:00.0/" + GPU0), "0x030200", "0x10de", "0x2335", "32.0 GT/s PCIe",
                "16");
        FakeSysfs.device(root.resolve(sw + "/0000:02:01.0/" + GPU1), "0x030200", "0x10de", "0x2335", "32.0 GT/s PCIe",
                "16");
        FakeSysfs.device(root.resolve("sys/devices/pci0000:00/0000:00:02.0"), "0x060400", "0x8086", "0x352b",
                "16.0 GT/s PCIe", "16");
        FakeSysfs.device(root.resolve("sys/devices/pci0000:00/0000:00:02.0/" + NVSWITCH), "0x068000", "0x10de",
                "0x22a3", "16.0 GT/s PCIe", "2");
        FakeSysfs.bus(root, "0000:00", "sys/devices/pci0000:00/pci_bus/0000:00");
        FakeSysfs.bus(root, "0000:01", "sys/devices/pci0000:00/0000:00:01.0/pci_bus/0000:01");
        FakeSysfs.bus(root, "0000:02", sw + "/pci_bus/0000:02");
        FakeSysfs.bus(root, "0000:03", sw + "/0000:02:00.0/pci_bus/0000:03");
        FakeSysfs.bus(root, "0000:04", sw + "/0000:02:01.0/pci_bus/0000:04");
        FakeSysfs.bus(root, "0000:05", "sys/devices/pci0000:00/0000:00:02.0/pci_bus/0000:05");
        Path node = root.resolve("sys/devices/system/node/node0");
        Files.createDirectories(node);
        Files.writeString(node.resolve("cpumap"), "000000ff\n");
        Files.createDirectories(root.resolve("proc"));
        Files.writeString(root.resolve("proc/cpuinfo"), "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
                + "model\t\t: 143\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n\n");
        return root;
    }
}
