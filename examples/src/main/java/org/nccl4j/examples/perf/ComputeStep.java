package org.nccl4j.examples.perf;

/**
 * The stand-in for a training step's compute in {@code perf --compute-us}: multiply-adds over a
 * private 256 KiB array for a given time, so the core is busy and its caches hold the compute's
 * data, not the collective's, when the call comes. {@code scripts/peers/mpi_compute_step.c} runs
 * the same loop before Open MPI's calls.
 */
final class ComputeStep {
    private static final int FLOATS = 64 * 1024;
    private final float[] work = new float[FLOATS];
    /** Read by nobody: keeps the JIT from dropping the loop. */
    private volatile float sink;

    /** Computes for {@code nanos} (whole passes over the array, at least one). */
    void run(long nanos) {
        long end = System.nanoTime() + nanos;
        float acc = 0;
        do {
            for (int i = 0; i < FLOATS; i++) {
                float v = work[i] * 0.999f + 0.001f;
                work[i] = v;
                acc += v;
            }
        } while (System.nanoTime() < end);
        sink = acc;
    }
}
