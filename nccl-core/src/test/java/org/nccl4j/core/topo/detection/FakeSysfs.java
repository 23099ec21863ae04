package org.nccl4j.core.topo.detection;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A small sysfs tree: root port 0000:00:01.0, a PCIe switch (upstream 0000:01:00.0, downstream
 * ports 0000:02:08.0 and 0000:02:10.0) with a 100G NIC under each downstream port, a virtio NIC
 * 0000:00:03.0/virtio2 under the root complex, NUMA node 0 with CPUs 0-3, an AMD Zen 2 CPU.
 */
final class FakeSysfs {
    static final String NIC0 = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:03:00.0";
    static final String NIC1 = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:10.0/0000:04:00.0";
    static final String VIRTIO = "/sys/devices/pci0000:00/0000:00:03.0/virtio2";

    private FakeSysfs() {
    }

    static Path create(Path root) throws IOException {
        Path devs = root.resolve("sys/devices/pci0000:00");
        Files.createDirectories(devs.resolve("pci_bus/0000:00"));
        device(devs.resolve("0000:00:01.0"), "0x060400", "16.0 GT/s PCIe", "16");
        device(devs.resolve("0000:00:01.0/0000:01:00.0"), "0x060400", "16.0 GT/s PCIe", "16");
        device(devs.resolve("0000:00:01.0/0000:01:00.0/0000:02:08.0"), "0x060400", "16.0 GT/s PCIe", "16");
        device(devs.resolve("0000:00:01.0/0000:01:00.0/0000:02:10.0"), "0x060400", "16.0 GT/s PCIe", "16");
        device(root.resolve(NIC0.substring(1)), "0x020000", "8.0 GT/s PCIe", "16");
        device(root.resolve(NIC1.substring(1)), "0x020000", "8.0 GT/s PCIe", "8");
        device(devs.resolve("0000:00:03.0"), "0x020000", "", "");
        Files.createDirectories(root.resolve(VIRTIO.substring(1)));
        Files.createDirectories(root.resolve("sys/bus/virtio"));
        Files.createDirectories(root.resolve("sys/bus/pci"));
        Files.createSymbolicLink(root.resolve(VIRTIO.substring(1) + "/subsystem"), root.resolve("sys/bus/virtio"));
        bus(root, "0000:00", "sys/devices/pci0000:00/pci_bus/0000:00");
        bus(root, "0000:01", "sys/devices/pci0000:00/0000:00:01.0/pci_bus/0000:01");
        bus(root, "0000:02", "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/pci_bus/0000:02");
        bus(root, "0000:03", "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/pci_bus/0000:03");
        bus(root, "0000:04", "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:10.0/pci_bus/0000:04");
        for (String nic : new String[] {NIC0, NIC1}) {
            Files.createSymbolicLink(root.resolve(nic.substring(1) + "/subsystem"), root.resolve("sys/bus/pci"));
        }
        Path node = root.resolve("sys/devices/system/node/node0");
        Files.createDirectories(node);
        Files.writeString(node.resolve("cpumap"), "0000000f\n");
        Files.createDirectories(root.resolve("proc"));
        Files.writeString(root.resolve("proc/cpuinfo"), "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\n"
                + "model\t\t: 49\nmodel name\t: AMD EPYC 7742\n\n");
        return root;
    }

    static void device(Path dir, String cls, String speed, String width) throws IOException {
        device(dir, cls, "0x15b3", "0x101b", speed, width);
    }

    static void device(Path dir, String cls, String vendor, String id, String speed, String width) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("class"), cls + "\n");
        Files.writeString(dir.resolve("vendor"), vendor + "\n");
        Files.writeString(dir.resolve("device"), id + "\n");
        Files.writeString(dir.resolve("numa_node"), "0\n");
        if (!speed.isEmpty()) {
            Files.writeString(dir.resolve("max_link_speed"), speed + "\n");
            Files.writeString(dir.resolve("max_link_width"), width + "\n");
        }
    }

    static void bus(Path root, String bus, String target) throws IOException {
        Path link = root.resolve("sys/class/pci_bus/" + bus);
        Files.createDirectories(link.getParent());
        Files.createDirectories(root.resolve(target));
        Files.createSymbolicLink(link, root.resolve(target));
    }
}
