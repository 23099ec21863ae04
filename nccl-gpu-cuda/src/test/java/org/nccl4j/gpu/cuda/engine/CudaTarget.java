package org.nccl4j.gpu.cuda.engine;

import org.nccl4j.core.device.gpu.suite.GpuTarget;
import org.nccl4j.core.param.Params;
import org.nccl4j.gpu.cuda.CudaBackend;
import org.nccl4j.gpu.cuda.CudaBackendProvider;
import org.nccl4j.gpu.cuda.driver.CudaDriver;

/** The cuda backend under the GPU suites. */
final class CudaTarget {
    /** Whether it runs here is asked once. */
    static final GpuTarget INSTANCE = new GpuTarget(CudaBackend.NAME, Params.CUDA_DEVICE.envName(),
            GpuTarget.whyUnusable(new CudaBackendProvider()), d -> CudaDriver.load().primaryContext(d),
            "libnccl-net-fixture-cuda.so");

    private CudaTarget() {
    }
}
