package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.nccl4j.core.device.DeviceBackendProvider;
import org.nccl4j.core.device.DeviceBackends;

/**
 * Whether the cuda backend runs here, for the examples' {@code @Tag("gpu")} tests and for the
 * tests of what {@code --device cuda} says where it cannot run. The NVIDIA kernel driver is judged
 * by its files, without nccl4j's code (as nccl-gpu-cuda's {@code NvidiaDriver}).
 */
final class CudaGpu {
    private CudaGpu() {
    }

    /** @return whether the NVIDIA kernel driver is present ({@code /dev/nvidiactl} or {@code /proc/driver/nvidia}) */
    static boolean driverPresent() {
        return Files.exists(Path.of("/dev/nvidiactl")) || Files.exists(Path.of("/proc/driver/nvidia/version"));
    }

    /**
     * Skips the calling test, saying why, where the cuda backend cannot run and no NVIDIA driver
     * is present; fails it where a driver is present but the backend still cannot run.
     */
    static void requireOrSkip() {
        String reason = unusable();
        if (reason == null) {
            return;
        }
        if (driverPresent()) {
            fail("an NVIDIA driver is present but the cuda backend cannot run: " + reason);
        }
        Assumptions.abort("no usable CUDA GPU: " + reason);
    }

    /** @return why the cuda backend cannot run here, or {@code null} when it can */
    static String unusable() {
        for (DeviceBackendProvider p : DeviceBackends.providers()) {
            if (p.name().equals("cuda")) {
                try {
                    return p.create().deviceCount() >= 1 ? null : "no CUDA device";
                } catch (Exception e) {
                    return e.getMessage();
                }
            }
        }
        return "the cuda backend (nccl-gpu-cuda) is not on the test class path";
    }
}
