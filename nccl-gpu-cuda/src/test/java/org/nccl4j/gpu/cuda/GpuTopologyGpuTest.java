package org.nccl4j.gpu.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.core.device.GpuDescription;
import org.nccl4j.core.device.LocalDevice;
import org.nccl4j.gpu.cuda.driver.CudaDriver;
import org.nccl4j.gpu.cuda.driver.Nvml;

/**
 * This machine's GPUs as topology detection sees them: each described with the bus id the
 * driver's {@code cuDeviceGetPCIBusId} reports, its compute capability and a sysfs directory;
 * a communicator's detected topology ({@code NCCL_TOPO_DUMP_FILE}) has its {@code <gpu>} at
 * that {@code <pci>}, and shared-device ranks beside it.
 */
@Tag("gpu")
class GpuTopologyGpuTest {
    @TempDir
    Path dir;

    @Test
    void everyGpuIsDescribedWithTheDriversBusIdAndComputeCapability() throws Exception {
        CudaDriver driver = NvidiaDriver.loadOrSkip();
        CudaBackend backend = new CudaBackend(driver);
        for (int d = 0; d < driver.deviceCount(); d++) {
            String busId = driver.pciBusId(d);
            GpuDescription g = backend.describeGpu(LocalDevice.busIdOf(busId)).orElseThrow();
            assertEquals(busId, g.busId());
            assertEquals(d, g.dev());
            assertEquals(driver.computeCapability(d), g.sm());
            assertTrue(Files.isDirectory(Path.of("/sys/bus/pci/devices", busId)), "/sys/bus/pci/devices/" + busId);
            for (GpuDescription.NvLink l : g.nvLinks()) {
                assertTrue(l.count() >= 1, l.toString());
            }
            System.out.println("GPU " + d + ": " + g + (Nvml.unusableReason() == null ? "" : " (NVML: "
                    + Nvml.unusableReason() + ")"));
        }
    }

    @Test
    void aCommunicatorsTopologyHasItsGpuAtItsPciPlace() throws Exception {
        CudaDriver driver = NvidiaDriver.loadOrSkip();
        String busId = driver.pciBusId(0);
        Path dump = dir.resolve("topo.xml");
        try (Communicator c = Nccl.commInitAll(1, CommConfig.builder().param("NCCL4J_DEVICE", "cuda")
                .param("NCCL4J_CUDA_DEVICE", "0").param("NCCL_TOPO_DUMP_FILE", dump.toString()).build()).get(0)) {
            String xml = Files.readString(dump);
            int sm = driver.computeCapability(0);
            Matcher m = Pattern.compile("<pci busid=\"" + Pattern.quote(busId) + "\" class=\"0x03[0-9a-f]+\"[^>]*>\\s*"
                    + "<gpu dev=\"0\" sm=\"" + sm + "\" rank=\"0\" gdr=\"[01]\"").matcher(xml);
            assertTrue(m.find(), xml);
            assertTrue(xml.contains("link_width=\""), xml);
        }
    }

    @Test
    void sharedDeviceRanksSitBesideTheirGpu() throws Exception {
        CudaDriver driver = NvidiaDriver.loadOrSkip();
        Path dump = dir.resolve("shared.xml");
        List<Communicator> comms = Nccl.commInitAll(4, CommConfig.builder().param("NCCL4J_DEVICE", "cuda")
                .param("NCCL4J_CUDA_DEVICE", "0").param("NCCL4J_SHARED_DEVICE", "1")
                .param("NCCL_TOPO_DUMP_FILE", dump.toString()).build());
        try {
            String xml = Files.readString(dump);
            int sm = driver.computeCapability(0);
            List<String> gpus = new ArrayList<>();
            Matcher m = Pattern.compile("<gpu dev=\"0\" sm=\"" + sm + "\" rank=\"(\\d)\"").matcher(xml);
            while (m.find()) {
                gpus.add(m.group(1));
            }
            assertEquals(List.of("0", "1", "2", "3"), gpus, xml);
            // Each rank's own <pci> is named by its shared-device id (bit 62 set), not the GPU's.
            assertEquals(4, Pattern.compile("<pci busid=\"4[0-9a-f]{10}:").matcher(xml).results().count(), xml);
        } finally {
            for (Communicator c : comms) {
                c.close();
            }
        }
    }
}
