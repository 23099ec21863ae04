package org.nccl4j.core.debug;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * The C {@code printf} conversions NCCL's outputs depend on ({@code %g}, {@code %W.Pf},
 * {@code %*s}), with glibc's rounding: the exact binary value, half to even
 * ({@link String#format} rounds the shortest decimal representation half up, which differs on
 * values such as 0.0005 or exact ties).
 */
public final class CFormat {
    private CFormat() {
    }

    /**
     * C's {@code printf("%g", v)}: 6 significant digits, exact binary value rounded half-even,
     * trailing zeros removed, exponent form below 1e-4 and from 1e6.
     *
     * @param v the value (a C {@code float} argument is promoted to double first)
     * @return the text C prints
     */
    public static String g(double v) {
        if (Double.isNaN(v)) {
            return Double.doubleToRawLongBits(v) < 0 ? "-nan" : "nan";
        }
        if (Double.isInfinite(v)) {
            return v < 0 ? "-inf" : "inf";
        }
        String sign = (v < 0 || (v == 0 && 1 / v < 0)) ? "-" : "";
        if (v == 0) {
            return sign + "0";
        }
        BigDecimal bd = new BigDecimal(Math.abs(v)).round(new MathContext(6, RoundingMode.HALF_EVEN));
        int exp = bd.precision() - bd.scale() - 1;
        if (exp < -4 || exp >= 6) {
            BigDecimal mant = bd.movePointLeft(exp).setScale(5, RoundingMode.HALF_EVEN);
            String m = stripZeros(mant.toPlainString());
            String e = String.valueOf(Math.abs(exp));
            return sign + m + "e" + (exp < 0 ? "-" : "+") + (e.length() < 2 ? "0" + e : e);
        }
        return sign + stripZeros(bd.setScale(Math.max(0, 5 - exp), RoundingMode.HALF_EVEN).toPlainString());
    }

    private static String stripZeros(String s) {
        if (s.indexOf('.') < 0) {
            return s;
        }
        int end = s.length();
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        if (s.charAt(end - 1) == '.') {
            end--;
        }
        return s.substring(0, end);
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
        return pad(fixed(value, precision), width);
    }

    /**
     * @param s     text
     * @param width field width
     * @return {@code s} right-aligned in {@code width} characters ({@code %*s})
     */
    public static String pad(String s, int width) {
        return s.length() >= width ? s : " ".repeat(width - s.length()) + s;
    }
}
