package org.nccl4j.gpu.cuda;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.nccl4j.core.device.DeviceUnavailableException;
import org.nccl4j.gpu.cuda.driver.CudaDriver;

/**
 * Whether this machine has an NVIDIA GPU, judged without nccl4j's code (the kernel driver's
 * files), so that tests of the no-driver path and of GPUs each know when they apply.
 */
public final class NvidiaDriver {
    private NvidiaDriver() {
    }

    /** @return whether the NVIDIA kernel driver is present ({@code /dev/nvidiactl} or {@code /proc/driver/nvidia}) */
    public static boolean present() {
        return Files.exists(Path.of("/dev/nvidiactl")) || Files.exists(Path.of("/proc/driver/nvidia/version"));
    }

    /**
     * For {@code @Tag("gpu")} tests: the driver, or the test is skipped saying why. Where the
     * kernel driver is present but nccl4j cannot load CUDA, the test fails instead.
     *
     * @return the loaded driver
     */
    public static CudaDriver loadOrSkip() {
        try {
            return CudaDriver.load();
        } catch (DeviceUnavailableException e) {
            if (present()) {
                fail("an NVIDIA driver is present but CUDA does not load: " + e.getMessage(), e);
            }
            Assumptions.abort("no GPU here: " + e.getMessage());
            throw new AssertionError("unreachable");
        }
    }
}
