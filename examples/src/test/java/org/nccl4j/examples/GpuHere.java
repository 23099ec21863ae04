package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.nccl4j.core.device.DeviceBackendProvider;
import org.nccl4j.core.device.DeviceBackends;

/**
 * Whether a GPU backend runs here, for the examples' {@code @Tag("gpu")} tests and for the tests
 * of what {@code --device cuda|hip} says where it cannot run. The kernel driver is judged by its
 * files, without nccl4j's code (as nccl-gpu-cuda's {@code NvidiaDriver}).
 *
 * @param backend the backend's name, as {@code --device} names it
 * @param vendor  whose GPU, for messages
 * @param driver  the files of which any one means the vendor's kernel driver is loaded
 * @param gdrPlugin the file name of nccl-net-ext's test net plugin that takes the GPU's memory
 *                (GPU Direct RDMA without an RDMA NIC), or {@code null} where none is built
 */
record GpuHere(String backend, String vendor, List<Path> driver, String gdrPlugin) {
    /** NVIDIA's GPUs, the cuda backend. */
    static final GpuHere CUDA = new GpuHere("cuda", "CUDA",
            List.of(Path.of("/dev/nvidiactl"), Path.of("/proc/driver/nvidia/version")), "libnccl-net-fixture-cuda.so");
    /** AMD's GPUs, the hip backend. */
    static final GpuHere HIP = new GpuHere("hip", "AMD", List.of(Path.of("/dev/kfd")), null);

    /** @return whether the vendor's kernel driver is present */
    boolean driverPresent() {
        return driver.stream().anyMatch(Files::exists);
    }

    /**
     * Skips the calling test, saying why, where the backend cannot run and no driver is present;
     * fails it where a driver is present but the backend still cannot run.
     */
    void requireOrSkip() {
        String reason = unusable();
        if (reason == null) {
            return;
        }
        if (driverPresent()) {
            fail("the " + vendor + " GPU driver is present but the " + backend + " backend cannot run: " + reason);
        }
        Assumptions.abort("no usable " + vendor + " GPU: " + reason);
    }

    /** @return why the backend cannot run here, or {@code null} when it can */
    String unusable() {
        for (DeviceBackendProvider p : DeviceBackends.providers()) {
            if (p.name().equals(backend)) {
                try {
                    return p.create().deviceCount() >= 1 ? null : "no " + vendor + " GPU";
                } catch (Exception e) {
                    return e.getMessage();
                }
            }
        }
        return "the " + backend + " backend is not on the test class path";
    }
}
