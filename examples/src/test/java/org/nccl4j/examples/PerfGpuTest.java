package org.nccl4j.examples;

/** {@link PerfGpuSuite} on the cuda backend (NVIDIA GPUs). */
class PerfGpuTest extends PerfGpuSuite {
    PerfGpuTest() {
        super(GpuHere.CUDA);
    }
}
