package org.nccl4j.gpu.hip;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nccl4j.core.device.GpuDescription;
import org.nccl4j.core.device.SharedDeviceId;
import org.nccl4j.core.device.GpuDescription.NvLink;

/**
 * {@link KfdTopology} on a KFD topology tree written as the amdgpu driver lays it out (there is no
 * AMD GPU here to read a real one from): a CPU node and four GPU nodes of two MI250X-like
 * packages, whose two dies are joined by 4 XGMI links and each die to the other package's by
 * one, beside PCIe links to the CPU (and one between two GPUs).
 */
class KfdTopologyTest {
    @TempDir
    Path root;

    private void node(int n, String properties, String... links) throws Exception {
        Path dir = Files.createDirectories(root.resolve("nodes/" + n));
        Files.writeString(dir.resolve("gpu_id"), properties.contains("simd_count 0") ? "0\n" : (1000 + n) + "\n");
        Files.writeString(dir.resolve("properties"), properties);
        for (int i = 0; i < links.length; i++) {
            Path l = Files.createDirectories(dir.resolve("io_links/" + i));
            Files.writeString(l.resolve("properties"), links[i]);
        }
    }

    private static String gpu(long location) {
        return "cpu_cores_count 0\nsimd_count 440\nmem_banks_count 1\ngfx_target_version 90010\nlocation_id "
                + location + "\ndomain 0\ndrm_render_minor 128\nhive_id 1234567\n";
    }

    private static String link(int type, int from, int to, int weight, int minBw, int maxBw) {
        return "type " + type + "\nversion_major 0\nversion_minor 0\nnode_from " + from + "\nnode_to " + to
                + "\nweight " + weight + "\nmin_latency 0\nmax_latency 0\nmin_bandwidth " + minBw
                + "\nmax_bandwidth " + maxBw + "\nrecommended_transfer_size 0\nflags 1\n";
    }

    @Test
    void gpusTheirAddressesArchitectureAndXgmiLinks() throws Exception {
        node(0, "cpu_cores_count 64\nsimd_count 0\nmem_banks_count 1\ngfx_target_version 0\nlocation_id 0\ndomain 0\n");
        // Bus 0xc1, 0xc6, 0x29, 0x2e (location_id = bus << 8 | device << 3 | function).
        // Node 1 also reaches node 4 over PCIe only (type 2): no XGMI link there.
        node(1, gpu(0xc100), link(2, 1, 0, 20, 312, 64000), link(11, 1, 2, 15, 50000, 200000),
                link(11, 1, 3, 15, 50000, 50000), link(2, 1, 4, 40, 312, 64000));
        node(2, gpu(0xc600), link(2, 2, 0, 20, 312, 64000), link(11, 2, 1, 15, 50000, 200000),
                link(11, 2, 4, 15, 50000, 50000));
        node(3, gpu(0x2900), link(2, 3, 0, 20, 312, 64000), link(11, 3, 4, 15, 50000, 200000),
                link(11, 3, 1, 15, 50000, 50000));
        node(4, gpu(0x2e00), link(2, 4, 0, 20, 312, 64000), link(11, 4, 3, 15, 50000, 200000),
                link(11, 4, 2, 15, 50000, 50000));
        List<KfdTopology.Gpu> gpus = KfdTopology.read(root);
        assertEquals(List.of(
                new KfdTopology.Gpu("0000:c1:00.0", "gfx90a", 90, List.of(new NvLink("0000:c6:00.0", GpuDescription.CLASS_GPU, 4),
                        new NvLink("0000:29:00.0", GpuDescription.CLASS_GPU, 1))),
                new KfdTopology.Gpu("0000:c6:00.0", "gfx90a", 90, List.of(new NvLink("0000:c1:00.0", GpuDescription.CLASS_GPU, 4),
                        new NvLink("0000:2e:00.0", GpuDescription.CLASS_GPU, 1))),
                new KfdTopology.Gpu("0000:29:00.0", "gfx90a", 90, List.of(new NvLink("0000:2e:00.0", GpuDescription.CLASS_GPU, 4),
                        new NvLink("0000:c1:00.0", GpuDescription.CLASS_GPU, 1))),
                new KfdTopology.Gpu("0000:2e:00.0", "gfx90a", 90, List.of(new NvLink("0000:29:00.0", GpuDescription.CLASS_GPU, 4),
                        new NvLink("0000:c6:00.0", GpuDescription.CLASS_GPU, 1)))), gpus);

        Map<String, Integer> visible = Map.of("0000:c6:00.0", 0);
        assertEquals(Optional.of(new GpuDescription("0000:c6:00.0", 0, 90, "gfx90a", gpus.get(1).xgmi())),
                KfdTopology.describe(gpus, 0xc6000L, b -> visible.getOrDefault(b, -1)));
        assertEquals(Optional.empty(), KfdTopology.describe(gpus, 0x99000L, b -> -1));
        // A rank sharing the GPU (NCCL4J_SHARED_DEVICE=1), of this process or another, is described as the GPU.
        assertEquals(Optional.of(new GpuDescription("0000:c6:00.0", 0, 90, "gfx90a", gpus.get(1).xgmi())),
                KfdTopology.describe(gpus, SharedDeviceId.of(0xc6000L, 4321, 3), b -> visible.getOrDefault(b, -1)));
        assertEquals(Optional.empty(), KfdTopology.describe(gpus, SharedDeviceId.of(0x99000L, 4321, 3), b -> -1));
    }

    @Test
    void noKfdMeansNoGpus() throws Exception {
        assertEquals(List.of(), KfdTopology.read(root.resolve("absent")));
    }

    @Test
    void architectureNamesAndBusIds() {
        assertEquals("gfx908", KfdTopology.gcn(90008));
        assertEquals("gfx90a", KfdTopology.gcn(90010));
        assertEquals("gfx942", KfdTopology.gcn(90402));
        assertEquals("gfx1100", KfdTopology.gcn(110000));
        assertEquals("0001:c1:02.3", KfdTopology.busId(1, 0xc100 | 2 << 3 | 3));
    }
}
