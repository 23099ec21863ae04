package org.nccl4j.net.socket;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.nccl4j.net.spi.NetLogger;
import org.nccl4j.net.spi.iface.NetInterface;

/**
 * One Socket device: a network interface with what {@code /sys/class/net} says about it.
 *
 * @param iface   the interface and its address
 * @param pciPath {@code realpath(/sys/class/net/<if>/device)}, or {@code null} for a virtual interface
 * @param speed   port speed in Mbps ({@value #DEFAULT_SPEED} when the kernel does not say)
 * @param vendor  the PCI vendor id ({@code 0x1d0f}), or {@code null} if unknown
 */
record SocketDevice(NetInterface iface, String pciPath, int speed, String vendor) {
    /** NCCL's speed when {@code /sys/class/net/<if>/speed} is unreadable or not positive: 10 Gbps. */
    static final int DEFAULT_SPEED = 10000;

    /** @return the interface name */
    String name() {
        return iface.name();
    }

    /**
     * Reads the interface's sysfs entries under {@code sysClassNet}.
     *
     * @param iface       the interface
     * @param sysClassNet normally {@code /sys/class/net}
     * @param log         where the speed fallback is reported
     * @return the device
     */
    static SocketDevice probe(NetInterface iface, Path sysClassNet, NetLogger log) {
        Path dir = sysClassNet.resolve(iface.name());
        String pciPath = null;
        try {
            Path device = dir.resolve("device");
            if (Files.exists(device)) {
                pciPath = device.toRealPath().toString();
            }
        } catch (IOException | SecurityException e) {
            pciPath = null;
        }
        int speed = readInt(dir.resolve("speed"));
        if (speed <= 0) {
            log.log(NetLogger.INFO, NetLogger.NET, "Could not get speed from " + dir.resolve("speed")
                    + ". Defaulting to 10 Gbps.");
            speed = DEFAULT_SPEED;
        }
        String vendor = readFirstLine(dir.resolve("device").resolve("vendor"));
        if (vendor != null && vendor.length() > 6) {
            vendor = vendor.substring(0, 6);
        }
        return new SocketDevice(iface, pciPath, speed, vendor);
    }

    private static int readInt(Path file) {
        String text = readFirstLine(file);
        if (text == null) {
            return 0;
        }
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Reading sysfs may fail with EINVAL (e.g. the speed of a loopback or down interface): treat as unknown. */
    private static String readFirstLine(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
            return text.isEmpty() ? null : text;
        } catch (IOException | SecurityException e) {
            return null;
        }
    }
}
