package org.nccl4j.core.conn;

import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.proto.LlLine;
import org.nccl4j.core.proto.Ll128Line;

/**
 * Buffer bytes per connection for each protocol ({@code comm->buffSizes}) and where each buffer
 * sits after the header. As in NCCL's {@code ncclRecvMem} the buffers follow each other in
 * protocol order (LL, LL128, Simple); each starts on a 4096-byte boundary.
 *
 * @param ll     LL buffer bytes ({@code NCCL_LL_BUFFSIZE})
 * @param ll128  LL128 buffer bytes ({@code NCCL_LL128_BUFFSIZE})
 * @param simple Simple buffer bytes ({@code NCCL_BUFFSIZE})
 */
public record BuffSizes(int ll, int ll128, int simple) {
    /** NCCL's LL default: 8 steps of 4096 lines of 16 bytes ({@code NCCL_LL_BUFF_SIZE}). */
    public static final int DEFAULT_LL = 524_288;
    /** NCCL's LL128 default: 8 steps of 640 threads x 120 words of 8 bytes ({@code NCCL_LL128_BUFF_SIZE}). */
    public static final int DEFAULT_LL128 = 4_915_200;
    private static final int ALIGN = 4096;

    /** Checks that every step of every buffer holds whole lines. */
    public BuffSizes {
        check("NCCL_LL_BUFFSIZE", ll, ConnMem.STEPS * LlLine.BYTES, ConnMem.STEPS * LlLine.BYTES, DEFAULT_LL);
        check("NCCL_LL128_BUFFSIZE", ll128, ConnMem.STEPS * Ll128Line.BYTES, ConnMem.STEPS * Ll128Line.BYTES,
                DEFAULT_LL128);
        check("NCCL_BUFFSIZE", simple, ConnMem.STEPS * 64, 8, 4_194_304);
    }

    /**
     * @param config parameters ({@code -2} or less means NCCL's default, as in {@code initTransportsRank})
     * @return the sizes
     * @throws NcclException with {@link Result#INVALID_ARGUMENT} for a size that is out of range
     */
    public static BuffSizes of(Config config) {
        return new BuffSizes(size(config.integer(Params.LL_BUFFSIZE), DEFAULT_LL),
                size(config.integer(Params.LL128_BUFFSIZE), DEFAULT_LL128), size(config.integer(Params.BUFFSIZE), 4_194_304));
    }

    private static int size(long v, int dflt) {
        return v <= -2 ? dflt : (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    private static void check(String name, int v, int min, int unit, int dflt) {
        if (v < min || v > (1 << 30) || v % unit != 0) {
            throw NcclException.of(Result.INVALID_ARGUMENT, name + "=" + v + " is out of range",
                    "use a multiple of " + unit + " between " + min + " and 1 GiB (default " + dflt + ")");
        }
    }

    /**
     * @param p a protocol
     * @return its buffer bytes
     */
    public int size(Protocol p) {
        return switch (p) {
            case LL -> ll;
            case LL128 -> ll128;
            case SIMPLE -> simple;
        };
    }

    /**
     * @param p a protocol
     * @return bytes per step slot of its buffer
     */
    public int stepSize(Protocol p) {
        return size(p) / ConnMem.STEPS;
    }

    /**
     * @param p a protocol
     * @return where its buffer starts, counted from the end of the header
     */
    public long offset(Protocol p) {
        long off = 0;
        for (Protocol q : Protocol.values()) {
            if (q == p) {
                return off;
            }
            off = align(off + size(q));
        }
        throw new IllegalArgumentException(String.valueOf(p));
    }

    /** @return the bytes of all buffers together, as laid out after the header */
    public long total() {
        return offset(Protocol.SIMPLE) + simple;
    }

    private static long align(long v) {
        return (v + ALIGN - 1) / ALIGN * ALIGN;
    }
}
