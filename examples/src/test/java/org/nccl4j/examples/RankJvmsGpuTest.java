package org.nccl4j.examples;

/** {@link RankJvmsGpuSuite} on the cuda backend (NVIDIA GPUs). */
class RankJvmsGpuTest extends RankJvmsGpuSuite {
    RankJvmsGpuTest() {
        super(GpuHere.CUDA);
    }
}
