package org.nccl4j.net.spi;

/**
 * A network device's properties ({@code ncclNetProperties}).
 *
 * @param name       device name for logs, e.g. {@code eth0} or {@code mlx5_0}
 * @param pciPath    the device's {@code /sys} PCI path for topology placement, or {@code null}
 * @param guid       NIC chip id; ports or functions of one NIC share it
 * @param ptrSupport {@link Net#PTR_HOST}, optionally or-ed with {@link Net#PTR_CUDA}
 * @param speed      port speed in Mbps
 * @param port       port number
 * @param maxComms   how many connections nccl4j may open on the device
 * @param latency    extra latency in microseconds the device adds (v5), 0 if unknown
 * @param maxRecvs   receives that may be grouped in one call (v5), 1 without grouping
 */
public record NetProperties(String name, String pciPath, long guid, int ptrSupport, int speed, int port,
                            int maxComms, float latency, int maxRecvs) {
}
