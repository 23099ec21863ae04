package org.nccl4j.core.topo.tuning;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * C {@code printf} {@code %W.Pf}: rounds the exact binary value half-to-even, as glibc does
 * ({@link String#format} rounds the shortest decimal representation half-up, which differs on
 * values such as 0.0005 or exact ties).
 */
public final class CFormat {
    private CFormat() {
    }

    /**
     * @param value     the value ({@code float} arguments are promoted to double, as in C varargs)
     * @param precision digits after the point
     * @return {@code %.<precision>f}
     */
    public static String fixed(double value, int precision) {
        if (Double.isNaN(value)) {
            return Math.copySign(1.0, value) < 0 ? "-nan" : "nan";
        }
        if (Double.isInfinite(value)) {
            return value < 0 ? "-inf" : "inf";
        }
        String s = new BigDecimal(value).setScale(precision, RoundingMode.HALF_EVEN).toPlainString();
        if (Math.copySign(1.0, value) < 0 && !s.startsWith("-")) {
            s = "-" + s; // C keeps the sign of negative values that round to zero
        }
        return s;
    }

    /**
     * @param value     the value
     * @param width     minimum width, right-aligned with spaces
     * @param precision digits after the point
     * @return {@code %<width>.<precision>f}
     */
    public static String fixed(double value, int width, int precision) {
        String s = fixed(value, precision);
        return s.length() >= width ? s : " ".repeat(width - s.length()) + s;
    }
}
