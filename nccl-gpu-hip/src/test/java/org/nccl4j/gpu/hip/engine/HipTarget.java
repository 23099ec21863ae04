package org.nccl4j.gpu.hip.engine;

import org.nccl4j.core.device.gpu.suite.GpuTarget;
import org.nccl4j.core.param.Params;
import org.nccl4j.gpu.hip.HipBackendProvider;
import org.nccl4j.gpu.hip.runtime.HipContext;
import org.nccl4j.gpu.hip.runtime.HipRuntime;

/** The hip backend under the GPU suites: the CUDA backend's GPU tests, on an AMD GPU. */
final class HipTarget {
    /**
     * Whether it runs here (runtime, AMD GPU, kernels in the jar) is asked once. No GDR plugin:
     * nccl-net-ext's fixture that takes GPU memory is built against CUDA.
     */
    static final GpuTarget INSTANCE = new GpuTarget(HipBackendProvider.NAME, Params.HIP_DEVICE.envName(),
            GpuTarget.whyUnusable(new HipBackendProvider()), d -> HipContext.open(HipRuntime.load(), d), null);

    private HipTarget() {
    }
}
