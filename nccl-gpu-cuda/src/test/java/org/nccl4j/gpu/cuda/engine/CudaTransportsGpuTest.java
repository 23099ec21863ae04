package org.nccl4j.gpu.cuda.engine;

import org.nccl4j.core.device.gpu.suite.TransportsGpuSuite;

/** {@link TransportsGpuSuite} on the cuda backend. */
class CudaTransportsGpuTest extends TransportsGpuSuite {
    CudaTransportsGpuTest() {
        super(CudaTarget.INSTANCE);
    }
}
