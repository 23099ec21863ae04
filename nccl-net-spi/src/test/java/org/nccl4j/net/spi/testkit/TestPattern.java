package org.nccl4j.net.spi.testkit;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Pseudo-random byte patterns (SplitMix64) to fill send buffers and check received ones byte
 * for byte. Each message gets its own seed, so stale data from an earlier message is caught.
 */
public final class TestPattern {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private TestPattern() {
    }

    /**
     * Fills a segment with the pattern for {@code seed}.
     *
     * @param segment the buffer
     * @param seed    the pattern's seed
     */
    public static void fill(MemorySegment segment, long seed) {
        long state = seed;
        long size = segment.byteSize();
        long off = 0;
        for (; off + 8 <= size; off += 8) {
            state += 0x9E3779B97F4A7C15L;
            segment.set(LONG, off, mix(state));
        }
        state += 0x9E3779B97F4A7C15L;
        long last = mix(state);
        for (; off < size; off++, last >>>= 8) {
            segment.set(ValueLayout.JAVA_BYTE, off, (byte) last);
        }
    }

    /**
     * Checks that {@code actual[0, size)} equals {@code expected[0, size)}.
     *
     * @param what     what is checked, for the failure message
     * @param expected the bytes sent
     * @param actual   the bytes received
     * @param size     how many bytes to compare
     * @throws AssertionError naming the first differing offset
     */
    public static void assertSame(String what, MemorySegment expected, MemorySegment actual, long size) {
        long at = MemorySegment.mismatch(expected, 0, size, actual, 0, size);
        if (at >= 0) {
            throw new AssertionError(what + ": " + size + "-byte message differs at offset " + at + ": expected 0x"
                    + Integer.toHexString(expected.get(ValueLayout.JAVA_BYTE, at) & 0xff) + ", got 0x"
                    + Integer.toHexString(actual.get(ValueLayout.JAVA_BYTE, at) & 0xff));
        }
    }

    /**
     * Checks that {@code segment[from, to)} still holds only {@code value} (nothing was written past
     * the message).
     *
     * @param what    what is checked, for the failure message
     * @param segment the buffer
     * @param from    first byte to check
     * @param to      end of the range
     * @param value   the canary byte
     */
    public static void assertUntouched(String what, MemorySegment segment, long from, long to, byte value) {
        for (long i = from; i < to; i++) {
            byte b = segment.get(ValueLayout.JAVA_BYTE, i);
            if (b != value) {
                throw new AssertionError(what + ": byte " + i + " beyond the message was overwritten (0x"
                        + Integer.toHexString(b & 0xff) + ")");
            }
        }
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
