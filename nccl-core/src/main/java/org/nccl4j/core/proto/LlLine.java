package org.nccl4j.core.proto;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The LL protocol's 16-byte line ({@code ncclLLFifoLine}): {@code data1, flag1, data2, flag2},
 * 4 bytes each, so a line carries 8 data bytes. Each half (data and flag) is one 8-byte word
 * written with a single atomic store: a reader that sees the expected flag in both halves has
 * the whole line, with no tail counter in between. The flag of step {@code s} is
 * {@code NCCL_LL_FLAG(s + 1)}, so lines left from earlier steps never match.
 */
public final class LlLine {
    /** Bytes per line. */
    public static final int BYTES = 16;
    /** Data bytes per line. */
    public static final int DATA_BYTES = 8;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final ValueLayout.OfLong DATA = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long LOW = 0xFFFF_FFFFL;

    private LlLine() {
    }

    /**
     * @param step the connection step
     * @return the flag its lines carry ({@code NCCL_LL_FLAG(step + 1)})
     */
    public static int flag(long step) {
        return (int) (step + 1);
    }

    /**
     * @param dataBytes data bytes
     * @return lines that carry them
     */
    public static long lines(long dataBytes) {
        return (dataBytes + DATA_BYTES - 1) / DATA_BYTES;
    }

    /**
     * Writes line {@code i}: 8 data bytes, each 4-byte half beside the flag in one atomic store.
     *
     * @param lines the step slot
     * @param i     line index
     * @param data  the line's 8 data bytes (little-endian: {@code data1} is the low half)
     * @param flag  the step's flag
     */
    public static void write(MemorySegment lines, long i, long data, int flag) {
        long f = (long) flag << 32;
        LONG.setOpaque(lines, i * BYTES, f | (data & LOW));
        LONG.setOpaque(lines, i * BYTES + 8, f | (data >>> 32));
    }

    /**
     * @param lines the step slot
     * @param i     line index
     * @param flag  the expected flag
     * @return whether both halves of line {@code i} carry {@code flag}
     */
    public static boolean ready(MemorySegment lines, long i, int flag) {
        long v1 = (long) LONG.getOpaque(lines, i * BYTES);
        long v2 = (long) LONG.getOpaque(lines, i * BYTES + 8);
        return (int) (v1 >>> 32) == flag && (int) (v2 >>> 32) == flag;
    }

    /**
     * Reads line {@code i} if it is complete ({@code readLL}).
     *
     * @param lines the step slot
     * @param i     line index
     * @param flag  the expected flag
     * @param out   where the 8 data bytes go
     * @param outOff offset in {@code out}; the 8 bytes are stored little-endian ({@code data1} first)
     * @return whether the line was complete and was copied
     */
    public static boolean read(MemorySegment lines, long i, int flag, MemorySegment out, long outOff) {
        long v1 = (long) LONG.getOpaque(lines, i * BYTES);
        long v2 = (long) LONG.getOpaque(lines, i * BYTES + 8);
        if ((int) (v1 >>> 32) != flag || (int) (v2 >>> 32) != flag) {
            return false;
        }
        out.set(DATA, outOff, (v1 & LOW) | (v2 << 32));
        return true;
    }
}
