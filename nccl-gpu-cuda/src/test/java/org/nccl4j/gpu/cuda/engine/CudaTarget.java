package org.nccl4j.gpu.cuda.engine;

import org.nccl4j.core.device.DeviceUnavailableException;
import org.nccl4j.core.device.gpu.GpuRuntime;
import org.nccl4j.core.device.gpu.suite.GpuTarget;
import org.nccl4j.gpu.cuda.CudaBackend;
import org.nccl4j.gpu.cuda.CudaBackendProvider;
import org.nccl4j.gpu.cuda.driver.CudaDriver;

/** The cuda backend under the GPU suites. */
final class CudaTarget implements GpuTarget {
    static final CudaTarget INSTANCE = new CudaTarget();
    /** Why the GPU is not usable here, or null; asked once. */
    private static final String NO_GPU = noGpu();

    private CudaTarget() {
    }

    private static String noGpu() {
        try {
            new CudaBackendProvider().create();
            return null;
        } catch (Exception e) {
            return e.getMessage();
        }
    }

    @Override
    public String backend() {
        return CudaBackend.NAME;
    }

    @Override
    public String deviceParam() {
        return "NCCL4J_CUDA_DEVICE";
    }

    @Override
    public String unusable() {
        return NO_GPU;
    }

    @Override
    public GpuRuntime runtime(int device) throws DeviceUnavailableException {
        return CudaDriver.load().primaryContext(device);
    }

    @Override
    public String gdrPlugin() {
        return "libnccl-net-fixture-cuda.so";
    }
}
