package org.nccl4j.gpu.hip;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;
import org.nccl4j.core.device.GpuDescription;
import org.nccl4j.core.device.LocalDevice;
import org.nccl4j.core.device.SharedDeviceId;

/**
 * AMD GPUs and their XGMI links as the kernel's KFD driver lists them under
 * {@code /sys/class/kfd/kfd/topology}: what RCCL asks rocm_smi for in {@code
 * ncclTopoGetXmlFromGpu} ({@code rocm_smi_getLinkInfo}: link type, hops, and the link count as
 * {@code max_bandwidth / min_bandwidth}), read from the files rocm_smi reads. A node is a GPU when
 * it has SIMDs; its PCI address is {@code domain} and {@code location_id} (bus, device,
 * function); its architecture {@code gfx_target_version} (major, minor, stepping: 90010 is
 * gfx90a). Its io_links of type 11 are XGMI links; KFD lists direct links only, so each is one
 * hop, as RCCL of that time counted a weight-15 XGMI link.
 */
final class KfdTopology {
    /** Where KFD publishes the topology. */
    static final Path ROOT = Path.of("/sys/class/kfd/kfd/topology");
    /** KFD's {@code CRAT_IOLINK_TYPE_XGMI}. */
    static final int IOLINK_TYPE_XGMI = 11;

    /**
     * One GPU node.
     *
     * @param busId its PCI bus id, lower case ({@code 0000:c1:00.0})
     * @param gcn   its architecture name ({@code gfx90a})
     * @param sm    major * 10 + minor of its architecture, HIP's compute capability
     * @param xgmi  its XGMI links, one per remote GPU
     */
    record Gpu(String busId, String gcn, int sm, List<GpuDescription.NvLink> xgmi) {
    }

    private KfdTopology() {
    }

    /**
     * @param root the topology folder ({@link #ROOT})
     * @return its GPU nodes, in node order; none where there is no KFD
     * @throws IOException when a file there cannot be read
     */
    static List<Gpu> read(Path root) throws IOException {
        Path nodesDir = root.resolve("nodes");
        if (!Files.isDirectory(nodesDir)) {
            return List.of();
        }
        Map<Integer, Map<String, Long>> nodes = new LinkedHashMap<>();
        try (Stream<Path> s = Files.list(nodesDir)) {
            for (Path n : s.filter(p -> p.getFileName().toString().matches("\\d+"))
                    .sorted((a, b) -> Integer.compare(index(a), index(b))).toList()) {
                nodes.put(index(n), properties(n.resolve("properties")));
            }
        }
        Map<Integer, String> busIds = new HashMap<>();
        nodes.forEach((n, p) -> {
            if (p.getOrDefault("simd_count", 0L) > 0) {
                busIds.put(n, busId(p.getOrDefault("domain", 0L), p.getOrDefault("location_id", 0L)));
            }
        });
        List<Gpu> gpus = new ArrayList<>();
        for (Map.Entry<Integer, Map<String, Long>> e : nodes.entrySet()) {
            String busId = busIds.get(e.getKey());
            if (busId == null) {
                continue;
            }
            long target = e.getValue().getOrDefault("gfx_target_version", 0L);
            int sm = (int) (target / 10_000 * 10 + target / 100 % 100);
            gpus.add(new Gpu(busId, gcn(target), sm, xgmi(nodesDir.resolve(e.getKey().toString()), busIds)));
        }
        return gpus;
    }

    /**
     * @param gpus    the host's GPUs ({@link #read})
     * @param id      a rank's numeric bus id: one of them, or a {@link SharedDeviceId} of one
     * @param ordinal the HIP device ordinal of a bus id, or -1 where this process does not see it
     * @return its description for topology detection, or empty when KFD does not list it
     */
    static Optional<GpuDescription> describe(List<Gpu> gpus, long id, ToIntFunction<String> ordinal) {
        boolean shared = SharedDeviceId.isShared(id);
        return gpus.stream().filter(g -> {
            long bus = LocalDevice.busIdOf(g.busId());
            return shared ? SharedDeviceId.onGpu(id, bus) : bus == id;
        }).findFirst()
                .map(g -> new GpuDescription(g.busId(), ordinal.applyAsInt(g.busId()), g.sm(), g.gcn(), g.xgmi()));
    }

    /** The node's XGMI links to other GPUs, one entry per remote, {@code max_bandwidth / min_bandwidth} links each. */
    private static List<GpuDescription.NvLink> xgmi(Path node, Map<Integer, String> busIds) throws IOException {
        Map<String, Integer> counts = new LinkedHashMap<>();
        Path links = node.resolve("io_links");
        if (Files.isDirectory(links)) {
            try (Stream<Path> s = Files.list(links)) {
                for (Path l : s.sorted((a, b) -> Integer.compare(index(a), index(b))).toList()) {
                    Map<String, Long> p = properties(l.resolve("properties"));
                    String remote = busIds.get((int) (long) p.getOrDefault("node_to", -1L));
                    if (p.getOrDefault("type", 0L) != IOLINK_TYPE_XGMI || remote == null) {
                        continue;
                    }
                    long min = p.getOrDefault("min_bandwidth", 0L);
                    long max = p.getOrDefault("max_bandwidth", 0L);
                    int count = min > 0 ? (int) Math.max(1, max / min) : 1;
                    counts.merge(remote, count, Integer::sum);
                }
            }
        }
        List<GpuDescription.NvLink> out = new ArrayList<>();
        counts.forEach((remote, n) -> out.add(new GpuDescription.NvLink(remote, GpuDescription.CLASS_GPU, n)));
        return out;
    }

    /**
     * @param gfxTargetVersion KFD's {@code gfx_target_version}: major * 10000 + minor * 100 + stepping
     * @return the architecture's name, the stepping in hex ({@code 90010} is {@code gfx90a})
     */
    static String gcn(long gfxTargetVersion) {
        return "gfx" + gfxTargetVersion / 10_000 + gfxTargetVersion / 100 % 100
                + Long.toHexString(gfxTargetVersion % 100);
    }

    /** {@code %04x:%02x:%02x.%x} of the domain and {@code location_id} (bus << 8 | device << 3 | function). */
    static String busId(long domain, long locationId) {
        return String.format(Locale.ROOT, "%04x:%02x:%02x.%x", domain, (locationId >> 8) & 0xff,
                (locationId >> 3) & 0x1f, locationId & 0x7);
    }

    /** A KFD properties file: one {@code name value} per line, the values integers. */
    private static Map<String, Long> properties(Path file) throws IOException {
        Map<String, Long> p = new HashMap<>();
        if (!Files.isRegularFile(file)) {
            return p;
        }
        for (String line : Files.readAllLines(file)) {
            String[] kv = line.trim().split("\\s+");
            if (kv.length == 2) {
                try {
                    p.put(kv[0], Long.parseLong(kv[1]));
                } catch (NumberFormatException e) {
                    // not a number: no property nccl4j reads
                }
            }
        }
        return p;
    }

    private static int index(Path p) {
        String name = p.getFileName().toString();
        return name.matches("\\d+") ? Integer.parseInt(name) : Integer.MAX_VALUE;
    }
}
