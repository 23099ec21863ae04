package org.nccl4j.gpu.cuda.engine;

import org.junit.jupiter.api.Assumptions;
import org.nccl4j.gpu.cuda.CudaBackendProvider;

/** Skips a GPU test, with the reason, where the cuda backend cannot run (no driver, no GPU). */
final class UsableGpu {
    /** Why the GPU is not usable here, or null; asked once. */
    private static final String NO_GPU = noGpu();

    private UsableGpu() {
    }

    private static String noGpu() {
        try {
            new CudaBackendProvider().create();
            return null;
        } catch (Exception e) {
            return e.getMessage();
        }
    }

    /** Call per test (from {@code @BeforeEach}), so that each test is reported skipped with the reason. */
    static void requireOrSkip() {
        Assumptions.assumeTrue(NO_GPU == null, "no usable CUDA GPU: " + NO_GPU);
    }
}
