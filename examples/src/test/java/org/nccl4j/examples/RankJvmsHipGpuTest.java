package org.nccl4j.examples;

/** {@link RankJvmsGpuSuite} on the hip backend (AMD GPUs). */
class RankJvmsHipGpuTest extends RankJvmsGpuSuite {
    RankJvmsHipGpuTest() {
        super(GpuHere.HIP);
    }
}
