package org.nccl4j.gpu.hip.engine;

import org.nccl4j.core.device.gpu.suite.TransportsGpuSuite;

/** {@link TransportsGpuSuite} on the hip backend (AMD GPUs). */
class HipTransportsGpuTest extends TransportsGpuSuite {
    HipTransportsGpuTest() {
        super(HipTarget.INSTANCE);
    }
}
