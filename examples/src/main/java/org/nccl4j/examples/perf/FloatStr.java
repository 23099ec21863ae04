package org.nccl4j.examples.perf;

import java.util.Locale;
import org.nccl4j.core.debug.CFormat;

/** nccl-tests' {@code getFloatStr}, on top of nccl4j's C {@code printf} conversions. */
final class FloatStr {
    private FloatStr() {
    }

    /**
     * The most decimals (2, 1, 0) that fit {@code width} characters, else scientific notation.
     *
     * @param value the number
     * @param width field width
     * @return the right-aligned text
     */
    static String fit(double value, int width) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return CFormat.pad(Double.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf", width);
        }
        for (int decimals = 2; decimals >= 0; decimals--) {
            String s = CFormat.fixed(value, decimals);
            if (s.length() <= width) {
                return CFormat.pad(s, width);
            }
        }
        return CFormat.pad(String.format(Locale.ROOT, width >= 7 ? "%.1e" : "%.0e", value), width);
    }
}
