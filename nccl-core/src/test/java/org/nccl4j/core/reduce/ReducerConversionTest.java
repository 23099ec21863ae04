package org.nccl4j.core.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nccl4j.DataType;

/** {@link HalfFloats}' float to 16-bit rounding, by hand and against the exact reference rounding. */
class ReducerConversionTest {
    private static int bf16(float v) {
        return HalfFloats.floatToBf16(v) & 0xffff;
    }

    private static int half(float v) {
        return HalfFloats.floatToHalf(v) & 0xffff;
    }

    private static float f(int bits) {
        return Float.intBitsToFloat(bits);
    }

    @Test
    void bfloat16RoundsToNearestEven() {
        assertEquals(0x3f80, bf16(1f));
        assertEquals(0x3f80, bf16(f(0x3f808000))); // tie, even is below
        assertEquals(0x3f82, bf16(f(0x3f818000))); // tie, even is above
        assertEquals(0x3f81, bf16(f(0x3f808001))); // just above the tie
        assertEquals(0x3f80, bf16(f(0x3f807fff))); // just below it
        assertEquals(0x7f80, bf16(Float.MAX_VALUE)); // rounds up to infinity
        assertEquals(0xff80, bf16(-Float.MAX_VALUE));
        assertEquals(0x7f80, bf16(Float.POSITIVE_INFINITY));
        assertEquals(0x8000, bf16(-0f));
        assertEquals(0x0000, bf16(Float.MIN_VALUE)); // below half of bf16's smallest subnormal
        assertEquals(0x0002, bf16(f(0x00018000))); // tie between subnormals 1 and 2: even
        assertEquals(0x8001, bf16(f(0x80010000)));
    }

    @Test
    void halfRoundsToNearestEven() {
        assertEquals(0x3c00, half(1f));
        assertEquals(0x6800, half(2049f)); // tie between 2048 and 2050
        assertEquals(0x6802, half(2051f)); // tie between 2050 and 2052
        assertEquals(0x7bff, half(65519f));
        assertEquals(0x7c00, half(65520f)); // tie between 65504 and 65536: infinity
        assertEquals(0x0001, half(0x1p-24f));
        assertEquals(0x0000, half(0x1p-25f)); // tie between 0 and the smallest subnormal
    }

    @Test
    void nanBecomesCanonical() {
        for (int bits : new int[] {0x7fc00000, 0x7f800001, 0xffc00000, 0xffffffff, 0x7fbfffff}) {
            assertEquals(0x7fff, bf16(f(bits)));
            assertEquals(0x7fff, half(f(bits)));
        }
    }

    @Test
    void randomFloatsRoundLikeTheReference() {
        Random rnd = new Random(42);
        for (int i = 0; i < 100_000; i++) {
            // Raw bits cover every exponent; the scaled ints land in half's range and make ties.
            float v = i % 2 == 0 ? f(rnd.nextInt()) : (rnd.nextInt(1 << 24) - (1 << 23)) * 0x1p-14f;
            assertEquals(ReduceReference.roundTo(DataType.BFLOAT16, v), bf16(v), () -> Float.toString(v));
            assertEquals(ReduceReference.roundTo(DataType.FLOAT16, v), half(v), () -> Float.toString(v));
        }
    }
}
