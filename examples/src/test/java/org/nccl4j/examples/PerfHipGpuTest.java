package org.nccl4j.examples;

/** {@link PerfGpuSuite} on the hip backend (AMD GPUs). */
class PerfHipGpuTest extends PerfGpuSuite {
    PerfHipGpuTest() {
        super(GpuHere.HIP);
    }
}
