package org.nccl4j.examples;

/** {@link TrainGpuSuite} on the cuda backend (NVIDIA GPUs). */
class TrainGpuTest extends TrainGpuSuite {
    TrainGpuTest() {
        super(GpuHere.CUDA);
    }
}
