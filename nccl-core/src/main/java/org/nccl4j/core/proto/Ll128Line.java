package org.nccl4j.core.proto;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The LL128 protocol's 128-byte line: 120 data bytes ({@code NCCL_LL128_DATAELEMS} words) and
 * an 8-byte flag word last ({@code NCCL_LL128_LINEELEMS}). The writer stores the data, then the
 * flag with release semantics; a reader that acquires the expected flag sees the data. The flag
 * of step {@code s} is {@code s + 1}.
 */
public final class Ll128Line {
    /** Bytes per line ({@code NCCL_LL128_LINESIZE}). */
    public static final int BYTES = 128;
    /** Data bytes per line. */
    public static final int DATA_BYTES = 120;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private Ll128Line() {
    }

    /**
     * @param step the connection step
     * @return the flag its lines carry
     */
    public static long flag(long step) {
        return step + 1;
    }

    /**
     * @param dataBytes data bytes
     * @return lines that carry them
     */
    public static long lines(long dataBytes) {
        return (dataBytes + DATA_BYTES - 1) / DATA_BYTES;
    }

    /**
     * Writes line {@code i}: its data, then its flag (release).
     *
     * @param lines the step slot
     * @param i     line index
     * @param src   the data
     * @param off   offset of the line's data in {@code src}
     * @param n     data bytes, at most {@link #DATA_BYTES}
     * @param flag  the step's flag
     */
    public static void write(MemorySegment lines, long i, MemorySegment src, long off, long n, long flag) {
        MemorySegment.copy(src, off, lines, i * BYTES, n);
        LONG.setRelease(lines, i * BYTES + DATA_BYTES, flag);
    }

    /**
     * @param lines the step slot
     * @param i     line index
     * @param flag  the expected flag
     * @return whether line {@code i} carries {@code flag} (acquire: its data is then visible)
     */
    public static boolean ready(MemorySegment lines, long i, long flag) {
        return (long) LONG.getAcquire(lines, i * BYTES + DATA_BYTES) == flag;
    }

    /**
     * Reads line {@code i} if it is complete.
     *
     * @param lines the step slot
     * @param i     line index
     * @param flag  the expected flag
     * @param out   where the data goes
     * @param off   offset in {@code out}
     * @param n     data bytes to copy, at most {@link #DATA_BYTES}
     * @return whether the line was complete and was copied
     */
    public static boolean read(MemorySegment lines, long i, long flag, MemorySegment out, long off, long n) {
        if (!ready(lines, i, flag)) {
            return false;
        }
        MemorySegment.copy(lines, i * BYTES, out, off, n);
        return true;
    }
}
