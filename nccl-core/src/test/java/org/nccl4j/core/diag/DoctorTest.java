package org.nccl4j.core.diag;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.device.DeviceBackendProvider;
import org.nccl4j.core.device.HostBackendProvider;
import org.nccl4j.core.device.TestBackendProvider;
import org.nccl4j.core.param.Config;

class DoctorTest {
    private static Config config(Map<String, String> env) {
        return Config.of(new Properties(), env, Path.of("/nonexistent/nccl.conf"));
    }

    private static final DeviceBackendProvider NO_DRIVER = TestBackendProvider.failing("cuda", 100, "libcuda.so.1 not found");

    @Test
    void hostBackendLineCountsItsDevices() {
        int cores = Runtime.getRuntime().availableProcessors();
        List<String> report = Doctor.report(config(Map.of()));
        int at = report.indexOf("Device backends (in the order tried):");
        assertTrue(at >= 0, String.join("\n", report));
        assertEquals("  host       priority 1000  chosen, " + cores + (cores == 1 ? " device" : " devices"), report.get(at + 1));
        assertEquals("", report.get(at + 2));
    }

    @Test
    void backendsAfterTheChosenOneAreNotTriedAndFailuresSayWhy() {
        assertEquals(List.of("Device backends (in the order tried):",
                        "  cuda       priority  100  unusable: libcuda.so.1 not found",
                        "  gpu        priority  200  chosen, 3 devices",
                        "  host       priority 1000  not tried: gpu came first"),
                Doctor.devices(config(Map.of()), List.of(NO_DRIVER, TestBackendProvider.with("gpu", 200, 3), new HostBackendProvider())));
    }

    @Test
    void unknownDeviceIsAnErrorNamingTheKnownBackends() {
        assertEquals(List.of("Device backends (in the order tried, NCCL4J_DEVICE=rocm):",
                        "  error: NCCL4J_DEVICE=rocm names no device backend; known backends: cuda, host",
                        "  hint: set NCCL4J_DEVICE to one of them, or unset it to take the first usable"),
                Doctor.devices(config(Map.of("NCCL4J_DEVICE", "rocm")), List.of(NO_DRIVER, new HostBackendProvider())));
    }

    @Test
    void aSetKnobTheHostBackendDoesNotApplyIsFlagged() {
        List<String> report = Doctor.report(config(Map.of("NCCL_COLLNET_ENABLE", "1")));
        String line = report.stream().filter(l -> l.startsWith("  NCCL_COLLNET_ENABLE ")).findFirst().orElseThrow();
        assertTrue(line.endsWith("(environment NCCL_COLLNET_ENABLE) not applicable on the host backend: nccl4j sets up no "
                + "CollNet (no net provides one; native CollNet plugins are not adapted), so it never runs; its graph is "
                + "still searched and printed, as NCCL does"), line);
        String unset = report.stream().filter(l -> l.startsWith("  NCCL_IGNORE_CPU_AFFINITY ")).findFirst().orElseThrow();
        assertTrue(unset.endsWith("(default)"), unset);
    }
}
