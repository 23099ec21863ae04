package org.nccl4j.gpu.cuda;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.nccl4j.core.device.GpuDescription;
import org.nccl4j.core.device.LocalDevice;
import org.nccl4j.core.device.SharedDeviceId;
import org.nccl4j.gpu.cuda.driver.CudaDriver;
import org.nccl4j.gpu.cuda.driver.Nvml;

/**
 * The cuda backend's answer to topology detection ({@code ncclTopoFillGpu}'s CUDA and NVML
 * queries): a GPU's ordinal and compute capability from the driver API when this process sees
 * it, else from NVML (a GPU of another process, hidden here by {@code CUDA_VISIBLE_DEVICES});
 * its NVLinks from NVML. (GPU Direct RDMA is what the network accepts: init's
 * {@link org.nccl4j.core.net.GdrProbe}.)
 */
final class GpuTopology {
    private GpuTopology() {
    }

    /**
     * @param driver the driver
     * @param id     a rank's bus id, or its {@link SharedDeviceId}
     * @return the GPU, or empty when neither CUDA nor NVML knows it
     */
    static Optional<GpuDescription> describe(CudaDriver driver, long id) {
        Optional<Nvml> nvml = Nvml.load();
        long busId = SharedDeviceId.isShared(id) ? sharedGpu(driver, nvml, id) : id;
        if (busId < 0) {
            return Optional.empty();
        }
        int dev = ordinal(driver, busId);
        String text;
        int sm;
        if (dev >= 0) {
            text = driver.pciBusId(dev);
            sm = driver.computeCapability(dev);
        } else {
            text = LocalDevice.busIdText(busId);
            OptionalInt index = nvml.map(n -> n.index(text)).orElse(OptionalInt.empty());
            OptionalInt cc = nvml.map(n -> n.computeCapability(text)).orElse(OptionalInt.empty());
            if (index.isEmpty() || cc.isEmpty()) {
                return Optional.empty();
            }
            dev = index.getAsInt();
            sm = cc.getAsInt();
        }
        List<GpuDescription.NvLink> links = nvml.map(n -> n.nvLinks(text, sm)).orElse(List.of());
        return Optional.of(new GpuDescription(text, dev, sm, links));
    }

    /** The bus id of a shared-device id's GPU: a visible one, else one NVML sees; -1 if none. */
    private static long sharedGpu(CudaDriver driver, Optional<Nvml> nvml, long id) {
        for (int d = 0; d < driver.deviceCount(); d++) {
            long bus = LocalDevice.busIdOf(driver.pciBusId(d));
            if (SharedDeviceId.onGpu(id, bus)) {
                return bus;
            }
        }
        for (String text : nvml.map(Nvml::busIds).orElse(List.of())) {
            long bus = LocalDevice.busIdOf(text);
            if (SharedDeviceId.onGpu(id, bus)) {
                return bus;
            }
        }
        return -1;
    }

    /** The ordinal of the visible GPU with this bus id, or -1. */
    private static int ordinal(CudaDriver driver, long busId) {
        for (int d = 0; d < driver.deviceCount(); d++) {
            if (LocalDevice.busIdOf(driver.pciBusId(d)) == busId) {
                return d;
            }
        }
        return -1;
    }
}
