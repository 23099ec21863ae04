package org.nccl4j.core.device.gpu.suite;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;

/** A suite of GPU tests run against one backend: each test skips, with the reason, where it cannot run. */
public abstract class GpuSuite {
    /** The backend under test. */
    protected final GpuTarget target;

    protected GpuSuite(GpuTarget target) {
        this.target = target;
    }

    // Per test rather than @BeforeAll, so that each test is reported skipped, with the reason.
    @BeforeEach
    void needsGpu() {
        String why = target.unusable();
        Assumptions.assumeTrue(why == null, "no usable " + target.backend() + " GPU: " + why);
    }
}
