package org.nccl4j.core.reduce;

import java.math.BigInteger;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/**
 * A slow, straightforward model of NCCL 2.10.3's reduction semantics, written apart from the
 * kernels: elements are raw bits in a long; integers go through BigInteger, 16-bit floats through
 * exact scaled-integer arithmetic and one explicit round-to-nearest-even.
 */
final class ReduceReference {
    private static final int SCALE = 1100; // 2^SCALE times any double is an integer
    static final long CANONICAL_NAN16 = 0x7fff;

    private ReduceReference() {
    }

    static int bits(DataType t) {
        return t.size() * 8;
    }

    static long mask(DataType t) {
        return t.size() == 8 ? -1L : (1L << bits(t)) - 1;
    }

    static boolean isUnsigned(DataType t) {
        return t == DataType.UINT8 || t == DataType.UINT32 || t == DataType.UINT64;
    }

    static boolean isInteger(DataType t) {
        return switch (t) {
            case INT8, UINT8, INT32, UINT32, INT64, UINT64 -> true;
            default -> false;
        };
    }

    // ---- integers ----

    static BigInteger intValue(DataType t, long raw) {
        BigInteger u = new BigInteger(Long.toUnsignedString(raw & mask(t)));
        if (!isUnsigned(t) && u.testBit(bits(t) - 1)) {
            u = u.subtract(BigInteger.ONE.shiftLeft(bits(t)));
        }
        return u;
    }

    static long wrap(DataType t, BigInteger v) {
        return v.mod(BigInteger.ONE.shiftLeft(bits(t))).longValue() & mask(t);
    }

    // ---- floats ----

    static double decode(DataType t, long raw) {
        return switch (t) {
            case FLOAT32 -> Float.intBitsToFloat((int) raw);
            case FLOAT64 -> Double.longBitsToDouble(raw);
            case FLOAT16 -> Float.float16ToFloat((short) raw);
            case BFLOAT16 -> Float.intBitsToFloat((int) (raw & 0xffff) << 16);
            default -> throw new IllegalArgumentException(t.toString());
        };
    }

    /** Encodes a double that is exactly representable in t (or infinite, or a NaN). */
    static long encode(DataType t, double v) {
        return switch (t) {
            case FLOAT32 -> Float.floatToRawIntBits((float) v) & 0xffffffffL;
            case FLOAT64 -> Double.doubleToRawLongBits(v);
            case FLOAT16 -> Double.isNaN(v) ? CANONICAL_NAN16 : Float.floatToFloat16((float) v) & 0xffff;
            case BFLOAT16 -> Double.isNaN(v) ? CANONICAL_NAN16 : (Float.floatToRawIntBits((float) v) >>> 16) & 0xffff;
            default -> throw new IllegalArgumentException(t.toString());
        };
    }

    /** p: significand bits with the hidden one; emin: smallest normal exponent; emax: largest. */
    private record Format(int p, int emin, int emax) {
    }

    private static Format format(DataType t) {
        return switch (t) {
            case FLOAT16 -> new Format(11, -14, 15);
            case BFLOAT16 -> new Format(8, -126, 127);
            case FLOAT32 -> new Format(24, -126, 127);
            default -> throw new IllegalArgumentException(t.toString());
        };
    }

    /** The exact value d * 2^SCALE as an integer. */
    static BigInteger scaled(double d) {
        if (d == 0) {
            return BigInteger.ZERO;
        }
        long b = Double.doubleToRawLongBits(d);
        long m = b & ((1L << 52) - 1);
        int e = (int) ((b >>> 52) & 0x7ff);
        int shift;
        if (e == 0) {
            shift = -1074;
        } else {
            m |= 1L << 52;
            shift = e - 1075;
        }
        BigInteger r = BigInteger.valueOf(m).shiftLeft(shift + SCALE);
        return d < 0 ? r.negate() : r;
    }

    /** Rounds v / 2^scale (non-zero) to format f, to nearest with ties to even; may give +-inf or +-0. */
    static double round(BigInteger v, int scale, Format f) {
        int sign = v.signum();
        BigInteger mag = v.abs();
        int e = mag.bitLength() - 1 - scale;
        int qexp = Math.max(e, f.emin()) - (f.p() - 1);
        int shift = scale + qexp;
        BigInteger q;
        if (shift <= 0) {
            q = mag.shiftLeft(-shift);
        } else {
            q = mag.shiftRight(shift);
            BigInteger rem = mag.subtract(q.shiftLeft(shift));
            int c = rem.compareTo(BigInteger.ONE.shiftLeft(shift - 1));
            if (c > 0 || (c == 0 && q.testBit(0))) {
                q = q.add(BigInteger.ONE);
            }
        }
        double r = Math.scalb(q.doubleValue(), qexp);
        if (r >= Math.scalb(1.0, f.emax() + 1)) {
            r = Double.POSITIVE_INFINITY;
        }
        return sign < 0 ? -r : (r == 0 ? 0.0 : r);
    }

    /** Rounds any double to a 16-bit type, to nearest-even, from its exact value. */
    static long roundTo(DataType t, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v) || v == 0) {
            return encode(t, v);
        }
        double r = round(scaled(v), SCALE, format(t));
        return encode(t, r == 0 ? Math.copySign(0.0, v) : r);
    }

    /** x op y for SUM or PROD in a 16-bit (or float32) format, rounded once from the exact value. */
    static long arith16(DataType t, boolean prod, long xb, long yb) {
        double x = decode(t, xb);
        double y = decode(t, yb);
        double approx = prod ? x * y : x + y; // only for NaN, infinity and exact zeros
        if (Double.isNaN(approx) || Double.isInfinite(x) || Double.isInfinite(y) || approx == 0) {
            return encode(t, approx);
        }
        BigInteger exact = prod ? scaled(x).multiply(scaled(y)) : scaled(x).add(scaled(y));
        double r = round(exact, prod ? 2 * SCALE : SCALE, format(t));
        if (r == 0) {
            r = exact.signum() < 0 ? -0.0 : 0.0;
        }
        return encode(t, r);
    }

    /**
     * IEEE 754-2019 maximumNumber/minimumNumber, which PTX max/min (fmaxf, fminf, __hmax) compute:
     * @return 0 to pick x, 1 to pick y, -1 when both are NaN
     */
    static int pick(double x, double y, boolean max) {
        boolean xn = Double.isNaN(x);
        boolean yn = Double.isNaN(y);
        if (xn && yn) {
            return -1;
        }
        if (xn) {
            return 1;
        }
        if (yn) {
            return 0;
        }
        if (x == 0 && y == 0) {
            boolean xNeg = Double.doubleToRawLongBits(x) < 0;
            boolean yNeg = Double.doubleToRawLongBits(y) < 0;
            // max prefers +0, min prefers -0
            return max ? (xNeg && !yNeg ? 1 : 0) : (!xNeg && yNeg ? 1 : 0);
        }
        return max ? (x >= y ? 0 : 1) : (x <= y ? 0 : 1);
    }

    // ---- the ops ----

    static long reduce(DataType t, RedOp op, long xb, long yb) {
        if (isInteger(t)) {
            BigInteger x = intValue(t, xb);
            BigInteger y = intValue(t, yb);
            return switch (op) {
                case SUM, AVG -> wrap(t, x.add(y));
                case PROD -> wrap(t, x.multiply(y));
                case MAX -> wrap(t, x.max(y));
                case MIN -> wrap(t, x.min(y));
            };
        }
        if (op == RedOp.MAX || op == RedOp.MIN) {
            int p = pick(decode(t, xb), decode(t, yb), op == RedOp.MAX);
            if (p < 0) {
                return t.size() == 2 ? CANONICAL_NAN16 : encode(t, Double.NaN);
            }
            return p == 0 ? xb : yb;
        }
        boolean prod = op == RedOp.PROD;
        return switch (t) {
            case FLOAT32 -> {
                float x = (float) decode(t, xb);
                float y = (float) decode(t, yb);
                yield encode(t, prod ? x * y : x + y);
            }
            case FLOAT64 -> {
                double x = decode(t, xb);
                double y = decode(t, yb);
                yield encode(t, prod ? x * y : x + y);
            }
            default -> arith16(t, prod, xb, yb);
        };
    }

    /** AVG's pre-op: floating types multiply by the reciprocal NCCL computes; integers pass. */
    static long pre(DataType t, int nranks, long xb) {
        return switch (t) {
            case FLOAT32 -> encode(t, (float) decode(t, xb) * (1f / nranks));
            case FLOAT64 -> encode(t, decode(t, xb) * (1.0 / nranks));
            case FLOAT16, BFLOAT16 -> {
                // __frcp_rn(float(n)), then rounded to the 16-bit type, then one 16-bit multiply.
                long scaleBits = roundTo(t, 1f / nranks);
                yield arith16(t, true, xb, scaleBits);
            }
            default -> xb;
        };
    }

    /** AVG's post-op: integers divide by nranks, truncating; floating types pass. */
    static long post(DataType t, int nranks, long xb) {
        if (!isInteger(t)) {
            return xb;
        }
        return wrap(t, intValue(t, xb).divide(BigInteger.valueOf(nranks)));
    }

    /** Bitwise equality, except that any two NaNs match for float32/float64 (payloads follow the CPU). */
    static boolean same(DataType t, long expected, long actual) {
        if ((expected & mask(t)) == (actual & mask(t))) {
            return true;
        }
        return (t == DataType.FLOAT32 || t == DataType.FLOAT64)
                && Double.isNaN(decode(t, expected)) && Double.isNaN(decode(t, actual));
    }
}
