package org.nccl4j.gpu.cuda.engine;

import org.nccl4j.core.device.gpu.suite.SendRecvGpuSuite;

/** {@link SendRecvGpuSuite} on the cuda backend. */
class CudaSendRecvGpuTest extends SendRecvGpuSuite {
    CudaSendRecvGpuTest() {
        super(CudaTarget.INSTANCE);
    }
}
