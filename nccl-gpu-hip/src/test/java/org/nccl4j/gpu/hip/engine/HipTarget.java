package org.nccl4j.gpu.hip.engine;

import org.nccl4j.core.device.DeviceUnavailableException;
import org.nccl4j.core.device.gpu.GpuRuntime;
import org.nccl4j.core.device.gpu.suite.GpuTarget;
import org.nccl4j.gpu.hip.HipBackendProvider;
import org.nccl4j.gpu.hip.runtime.HipContext;
import org.nccl4j.gpu.hip.runtime.HipRuntime;

/** The hip backend under the GPU suites: the CUDA backend's GPU tests, on an AMD GPU. */
final class HipTarget implements GpuTarget {
    static final HipTarget INSTANCE = new HipTarget();
    /** Why the backend cannot run here (no runtime, no AMD GPU, no kernels in the jar), or null; asked once. */
    private static final String NO_GPU = noGpu();

    private HipTarget() {
    }

    private static String noGpu() {
        try {
            new HipBackendProvider().create();
            return null;
        } catch (Exception e) {
            return e.getMessage();
        }
    }

    @Override
    public String backend() {
        return HipBackendProvider.NAME;
    }

    @Override
    public String deviceParam() {
        return "NCCL4J_HIP_DEVICE";
    }

    @Override
    public String unusable() {
        return NO_GPU;
    }

    @Override
    public GpuRuntime runtime(int device) throws DeviceUnavailableException {
        return HipContext.open(HipRuntime.load(), device);
    }

    /** {@inheritDoc} None yet: nccl-net-ext's fixture that takes GPU memory is built against CUDA. */
    @Override
    public String gdrPlugin() {
        return null;
    }
}
