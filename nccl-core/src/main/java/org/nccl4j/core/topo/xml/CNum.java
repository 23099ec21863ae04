package org.nccl4j.core.topo.xml;


/**
 * C library number conversions as NCCL uses them: {@code strtol(s, NULL, 0)}, {@code strtof}
 * and NCCL's PCI bus id helpers ({@code printf} is {@link org.nccl4j.core.debug.CFormat}). Results
 * match glibc, so values read from topology files are identical to NCCL's.
 */
public final class CNum {
    private CNum() {
    }

    /**
     * {@code strtol(s, NULL, base)}: leading blanks, optional sign, {@code 0x} prefix for base 0
     * or 16, leading {@code 0} means octal for base 0; stops at the first invalid character and
     * saturates like glibc's 64-bit {@code long}.
     *
     * @param s    the text
     * @param base 0, 8, 10 or 16
     * @return the value (0 when nothing parses)
     */
    public static long strtol(String s, int base) {
        int i = 0;
        int n = s.length();
        while (i < n && isSpace(s.charAt(i))) {
            i++;
        }
        boolean neg = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            neg = s.charAt(i) == '-';
            i++;
        }
        if ((base == 0 || base == 16) && i + 1 < n && s.charAt(i) == '0'
                && (s.charAt(i + 1) == 'x' || s.charAt(i + 1) == 'X') && i + 2 < n && digit(s.charAt(i + 2), 16) >= 0) {
            base = 16;
            i += 2;
        } else if (base == 0) {
            base = i < n && s.charAt(i) == '0' ? 8 : 10;
        }
        long limit = Long.MAX_VALUE;
        long v = 0;
        boolean overflow = false;
        for (; i < n; i++) {
            int d = digit(s.charAt(i), base);
            if (d < 0) {
                break;
            }
            if (!overflow) {
                if (v > (limit - d) / base) {
                    overflow = true;
                } else {
                    v = v * base + d;
                }
            }
        }
        if (overflow) {
            return neg ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return neg ? -v : v;
    }

    /**
     * {@code (int) strtol(s, NULL, 0)}, the conversion of NCCL's {@code xmlGetAttrInt}.
     *
     * @param s the text
     * @return the value truncated to 32 bits
     */
    public static int atoi0(String s) {
        return (int) strtol(s, 0);
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0b;
    }

    private static int digit(char c, int base) {
        int d;
        if (c >= '0' && c <= '9') {
            d = c - '0';
        } else if (c >= 'a' && c <= 'z') {
            d = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'Z') {
            d = c - 'A' + 10;
        } else {
            return -1;
        }
        return d < base ? d : -1;
    }

    /**
     * {@code strtof(s, NULL)} for decimal numbers, {@code inf} and {@code nan}; 0 when nothing
     * parses.
     *
     * @param s the text
     * @return the correctly rounded float
     */
    public static float strtof(String s) {
        int i = 0;
        int n = s.length();
        while (i < n && isSpace(s.charAt(i))) {
            i++;
        }
        int start = i;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            i++;
        }
        String rest = s.substring(i).toLowerCase(java.util.Locale.ROOT);
        boolean neg = start < n && s.charAt(start) == '-';
        if (rest.startsWith("inf")) {
            return neg ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY;
        }
        if (rest.startsWith("nan")) {
            return Float.NaN;
        }
        int mant = i;
        while (i < n && Character.isDigit(s.charAt(i)) && s.charAt(i) < 128) {
            i++;
        }
        int intDigits = i - mant;
        int fracDigits = 0;
        if (i < n && s.charAt(i) == '.') {
            int j = i + 1;
            while (j < n && s.charAt(j) >= '0' && s.charAt(j) <= '9') {
                j++;
            }
            fracDigits = j - i - 1;
            if (intDigits + fracDigits > 0) {
                i = j;
            }
        }
        if (intDigits + fracDigits == 0) {
            return 0f;
        }
        if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            int j = i + 1;
            if (j < n && (s.charAt(j) == '+' || s.charAt(j) == '-')) {
                j++;
            }
            int k = j;
            while (k < n && s.charAt(k) >= '0' && s.charAt(k) <= '9') {
                k++;
            }
            if (k > j) {
                i = k;
            }
        }
        return Float.parseFloat(s.substring(start, i));
    }

    /**
     * NCCL's {@code busIdToInt64}: the hex digits of a bus id, skipping {@code :} and {@code .},
     * up to the first other character ({@code "0000:07:00.0"} → {@code 0x7000}).
     *
     * @param busId the bus id text
     * @return its numeric id
     */
    public static long busIdToInt64(String busId) {
        StringBuilder hex = new StringBuilder();
        for (int i = 0; i < busId.length(); i++) {
            char c = busId.charAt(i);
            if (c == '.' || c == ':') {
                continue;
            }
            if (digit(c, 16) >= 0) {
                hex.append(c);
            } else {
                break;
            }
        }
        return strtol(hex.toString(), 16);
    }

    /**
     * NCCL's {@code int64ToBusId}: {@code %04lx:%02lx:%02lx.%01lx}.
     *
     * @param id a numeric bus id
     * @return the bus id text
     */
    public static String int64ToBusId(long id) {
        return String.format("%04x:%02x:%02x.%01x", id >> 20, (id & 0xff000) >> 12, (id & 0xff0) >> 4, id & 0xf);
    }

    /**
     * C's {@code roundf} for the search's bandwidth bookkeeping: halves round away from zero.
     *
     * @param x the value
     * @return the nearest integral float
     */
    public static float roundf(float x) {
        if (x < 0) {
            return -roundf(-x);
        }
        float f = (float) Math.floor(x);
        return x - f >= 0.5f ? f + 1f : f;
    }
}
