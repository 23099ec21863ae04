package org.nccl4j.gpu.cuda.engine;

import org.nccl4j.core.device.gpu.suite.CollectivesGpuSuite;

/** {@link CollectivesGpuSuite} on the cuda backend. */
class CudaCollectivesGpuTest extends CollectivesGpuSuite {
    CudaCollectivesGpuTest() {
        super(CudaTarget.INSTANCE);
    }
}
