package org.nccl4j.gpu.hip.engine;

import org.nccl4j.core.device.gpu.suite.CollectivesGpuSuite;

/** {@link CollectivesGpuSuite} on the hip backend (AMD GPUs). */
class HipCollectivesGpuTest extends CollectivesGpuSuite {
    HipCollectivesGpuTest() {
        super(HipTarget.INSTANCE);
    }
}
