package org.nccl4j.examples;

/** {@link TrainGpuSuite} on the hip backend (AMD GPUs). */
class TrainHipGpuTest extends TrainGpuSuite {
    TrainHipGpuTest() {
        super(GpuHere.HIP);
    }
}
