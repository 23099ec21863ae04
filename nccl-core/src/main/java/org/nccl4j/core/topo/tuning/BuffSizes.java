package org.nccl4j.core.topo.tuning;

import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;

/**
 * Per-protocol connection buffer sizes ({@code computeBuffSizes} of init.cc): the user's
 * {@code NCCL_LL_BUFFSIZE}, {@code NCCL_LL128_BUFFSIZE}, {@code NCCL_BUFFSIZE} unless -2, else
 * NCCL's defaults (Simple is 1 MiB on ARM CPUs).
 *
 * @param ll     LL bytes
 * @param ll128  LL128 bytes
 * @param simple Simple bytes
 */
public record BuffSizes(int ll, int ll128, int simple) {
    /** LL lines per thread x max threads x steps x 16-byte lines. */
    public static final int DEFAULT_LL = 8 * ThreadCounts.LL_MAX_NTHREADS * 8 * 16;
    /** LL128 elements per thread x max threads x steps x 8 bytes. */
    public static final int DEFAULT_LL128 = 120 * ThreadCounts.LL128_MAX_NTHREADS * 8 * 8;
    /** 4 MiB. */
    public static final int DEFAULT_SIMPLE = 1 << 22;
    /** 1 MiB, the Simple default on ARM. */
    public static final int DEFAULT_SIMPLE_ARM = 1 << 20;
    private static final long UNSET = -2;

    /**
     * @param config  parameters
     * @param cpuArch the first CPU's arch code ({@link CpuType#ARCH_ARM} lowers the Simple default)
     * @return the sizes
     */
    public static BuffSizes compute(Config config, int cpuArch) {
        int simpleDefault = cpuArch == CpuType.ARCH_ARM ? DEFAULT_SIMPLE_ARM : DEFAULT_SIMPLE;
        return new BuffSizes(pick(config.integer(Params.LL_BUFFSIZE), DEFAULT_LL),
                pick(config.integer(Params.LL128_BUFFSIZE), DEFAULT_LL128),
                pick(config.integer(Params.BUFFSIZE), simpleDefault));
    }

    /**
     * @param p a protocol
     * @return its buffer size
     */
    public int of(Protocol p) {
        return switch (p) {
            case LL -> ll;
            case LL128 -> ll128;
            case SIMPLE -> simple;
        };
    }

    private static int pick(long env, int def) {
        // NCCL stores the 64-bit parameter into an int.
        return env != UNSET ? (int) env : def;
    }
}
