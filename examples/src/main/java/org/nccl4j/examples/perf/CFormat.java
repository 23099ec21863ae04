package org.nccl4j.examples.perf;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * The few C {@code printf} behaviours nccl-tests' output depends on, which Java's formatter lacks:
 * {@code %g}, and glibc's rounding of the exact binary value half-to-even (Java's formatter rounds
 * half up, so {@code 0.125} would print {@code 0.13} instead of C's {@code 0.12}).
 */
final class CFormat {
    private CFormat() {
    }

    /**
     * nccl-tests' {@code getFloatStr}: the most decimals (2, 1, 0) that fit {@code width}
     * characters, else scientific notation.
     *
     * @param value the number
     * @param width field width
     * @return the right-aligned text
     */
    static String fit(double value, int width) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return pad(Double.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf", width);
        }
        for (int decimals = 2; decimals >= 0; decimals--) {
            String s = new BigDecimal(value).setScale(decimals, RoundingMode.HALF_EVEN).toPlainString();
            if (s.length() <= width) {
                return pad(s, width);
            }
        }
        return pad(String.format(Locale.ROOT, width >= 7 ? "%.1e" : "%.0e", value), width);
    }

    /**
     * C's {@code %g}: 6 significant digits, trailing zeros dropped, scientific notation below
     * 1e-4 and from 1e6 on.
     *
     * @param value the number
     * @return the text
     */
    static String g(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return Double.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
        }
        if (value == 0) {
            return "0";
        }
        BigDecimal rounded = new BigDecimal(value).round(new MathContext(6, RoundingMode.HALF_EVEN));
        int exp = rounded.precision() - rounded.scale() - 1;
        if (exp < -4 || exp >= 6) {
            String mantissa = stripZeros(rounded.movePointLeft(exp).setScale(5, RoundingMode.HALF_EVEN)
                    .toPlainString());
            return mantissa + (exp < 0 ? "e-" : "e+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
        }
        return stripZeros(rounded.setScale(Math.max(0, 5 - exp), RoundingMode.HALF_EVEN).toPlainString());
    }

    /**
     * @param s     text
     * @param width field width
     * @return {@code s} right-aligned in {@code width} characters ({@code %*s})
     */
    static String pad(String s, int width) {
        return s.length() >= width ? s : " ".repeat(width - s.length()) + s;
    }

    private static String stripZeros(String s) {
        if (!s.contains(".")) {
            return s;
        }
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}
