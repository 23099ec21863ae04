package org.nccl4j.gpu.hip.engine;

import org.nccl4j.core.device.gpu.suite.SendRecvGpuSuite;

/** {@link SendRecvGpuSuite} on the hip backend (AMD GPUs). */
class HipSendRecvGpuTest extends SendRecvGpuSuite {
    HipSendRecvGpuTest() {
        super(HipTarget.INSTANCE);
    }
}
