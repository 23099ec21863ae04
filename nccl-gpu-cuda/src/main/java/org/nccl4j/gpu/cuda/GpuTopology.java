package org.nccl4j.gpu.cuda;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.nccl4j.core.device.GpuDescription;
import org.nccl4j.gpu.cuda.driver.CudaDriver;
import org.nccl4j.gpu.cuda.driver.Nvml;

/**
 * The cuda backend's answer to topology detection ({@code ncclTopoFillGpu}'s CUDA and NVML
 * queries): a GPU's ordinal and compute capability from the driver API when this process sees
 * it, else from NVML (a GPU of another process, hidden here by {@code CUDA_VISIBLE_DEVICES});
 * its NVLinks from NVML; GPUDirect RDMA from the kernel's peer-memory module.
 */
final class GpuTopology {
    /** Where the NVIDIA peer-memory modules announce themselves (NCCL's IB transport checks the same). */
    private static final List<Path> PEER_MEMORY = List.of(Path.of("/sys/kernel/mm/memory_peers/nv_mem/version"),
            Path.of("/sys/module/nvidia_peermem/version"));

    private GpuTopology() {
    }

    /**
     * @param driver the driver
     * @param busId  a rank's bus id
     * @param shared the ordinal of a shared-device id this process handed out, or {@code null}
     * @return the GPU, or empty when neither CUDA nor NVML knows it
     */
    static Optional<GpuDescription> describe(CudaDriver driver, long busId, Integer shared) {
        int dev = shared != null ? shared : ordinal(driver, busId);
        String text;
        int sm;
        Optional<Nvml> nvml = Nvml.load();
        if (dev >= 0) {
            text = driver.pciBusId(dev);
            sm = driver.computeCapability(dev);
        } else {
            text = BusId.toText(busId);
            OptionalInt index = nvml.map(n -> n.index(text)).orElse(OptionalInt.empty());
            OptionalInt cc = nvml.map(n -> n.computeCapability(text)).orElse(OptionalInt.empty());
            if (index.isEmpty() || cc.isEmpty()) {
                return Optional.empty();
            }
            dev = index.getAsInt();
            sm = cc.getAsInt();
        }
        List<GpuDescription.NvLink> links = nvml.map(n -> n.nvLinks(text, sm)).orElse(List.of());
        return Optional.of(new GpuDescription(text, dev, sm, gdr(), links));
    }

    /** The ordinal of the visible GPU with this bus id, or -1. */
    private static int ordinal(CudaDriver driver, long busId) {
        for (int d = 0; d < driver.deviceCount(); d++) {
            if (BusId.toInt64(driver.pciBusId(d)) == busId) {
                return d;
            }
        }
        return -1;
    }

    private static boolean gdr() {
        return PEER_MEMORY.stream().anyMatch(Files::exists);
    }
}
