package org.nccl4j.gpu.cuda;

import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.DeviceBackendProvider;
import org.nccl4j.core.device.DeviceUnavailableException;
import org.nccl4j.gpu.cuda.driver.CudaDriver;
import org.nccl4j.gpu.cuda.fatbin.FatbinResource;

/**
 * Provides the {@link CudaBackend}, tried before the host backend. Unusable, it says why: no
 * NVIDIA driver, bindings that do not load, {@code cuInit} failing, no device, or a jar built
 * without kernels; both of the last and another reason are reported together.
 */
public final class CudaBackendProvider implements DeviceBackendProvider {
    /** The CUDA backend's priority: before the host backend's 1000. */
    public static final int PRIORITY = 100;

    @Override
    public String name() {
        return CudaBackend.NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public DeviceBackend create() throws DeviceUnavailableException {
        boolean kernels = FatbinResource.present();
        CudaDriver driver;
        try {
            driver = CudaDriver.load();
        } catch (DeviceUnavailableException e) {
            if (kernels) {
                throw e;
            }
            throw new DeviceUnavailableException(e.getMessage() + "; and " + FatbinResource.MISSING, e);
        }
        if (!kernels) {
            throw new DeviceUnavailableException(FatbinResource.MISSING, null);
        }
        return new CudaBackend(driver);
    }
}
