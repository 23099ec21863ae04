package org.nccl4j.core.topo.tuning;

import org.nccl4j.core.debug.Log;

/** Thread limits of NCCL's kernels and {@code getNthreads} (how {@code NCCL_NTHREADS} is honoured). */
public final class ThreadCounts {
    /** {@code WARP_SIZE}. */
    public static final int WARP_SIZE = 32;
    /** {@code NCCL_SIMPLE_MAX_NTHREADS}. */
    public static final int SIMPLE_MAX_NTHREADS = 512;
    /** {@code NCCL_LL_MAX_NTHREADS}. */
    public static final int LL_MAX_NTHREADS = 512;
    /** {@code NCCL_LL128_MAX_NTHREADS}. */
    public static final int LL128_MAX_NTHREADS = 640;
    /** {@code NCCL_LL_THREAD_THRESHOLD}. */
    public static final int LL_THREAD_THRESHOLD = 8;
    /** {@code NCCL_LL128_THREAD_THRESHOLD}. */
    public static final int LL128_THREAD_THRESHOLD = 8;
    /** {@code NCCL_SIMPLE_THREAD_THRESHOLD}. */
    public static final int SIMPLE_THREAD_THRESHOLD = 64;

    private ThreadCounts() {
    }

    /**
     * A user thread count if it is valid, else the nearest valid one (with NCCL's warning), or the
     * default when the user set none (value &le; 0).
     *
     * @param name parameter name for warnings
     * @param env  the user's value, -2 if unset
     * @param min  fewest threads
     * @param max  most threads
     * @param def  the default
     * @return the thread count
     */
    public static int getNthreads(String name, int env, int min, int max, int def) {
        int nt = env;
        if (nt > 0) {
            if (nt % WARP_SIZE != 0) {
                Log.warn("Invalid %s %d (must be a multiple of %d)", name, nt, WARP_SIZE);
                nt = max;
            } else if (nt > max) {
                Log.warn("Invalid %s %d (maximum %d).", name, nt, max);
                nt = max;
            } else if (nt < min) {
                Log.warn("Invalid %s %d (minimum %d).", name, nt, min);
                nt = min;
            }
        } else {
            nt = def;
        }
        return nt;
    }
}
