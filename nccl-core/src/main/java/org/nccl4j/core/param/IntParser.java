package org.nccl4j.core.param;

import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * Parses integer parameters as NCCL does with {@code strtoll(s, NULL, 0)}: optional sign, then
 * {@code 0x} hex, a leading {@code 0} octal ({@code 018} is 1 in NCCL), or decimal. Unlike
 * NCCL, text that is not a number at all, trailing garbage and overflow are refused with a
 * clear error instead of silently becoming 0 or the default.
 */
final class IntParser {
    private IntParser() {
    }

    static long parse(String name, String text) {
        String s = text.strip();
        int i = 0;
        boolean negative = false;
        if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            negative = s.charAt(i) == '-';
            i++;
        }
        int radix = 10;
        if (s.startsWith("0x", i) || s.startsWith("0X", i)) {
            radix = 16;
            i += 2;
        } else if (s.length() > i + 1 && s.charAt(i) == '0') {
            radix = 8;
            i++;
        }
        int start = i;
        while (i < s.length() && Character.digit(s.charAt(i), radix) >= 0) {
            i++;
        }
        if (i == start && !(radix == 8 && start > 0)) {
            throw bad(name, text, "is not an integer");
        }
        if (i != s.length()) {
            throw bad(name, text, "has trailing characters '" + s.substring(i) + "'");
        }
        try {
            long v = i == start ? 0 : Long.parseLong(s.substring(start, i), radix);
            return negative ? -v : v;
        } catch (NumberFormatException e) {
            throw bad(name, text, "is out of the 64-bit range");
        }
    }

    private static NcclException bad(String name, String text, String why) {
        return NcclException.of(Result.INVALID_ARGUMENT, name + "=" + text + " " + why,
                "use a decimal, 0x hexadecimal or 0-prefixed octal integer");
    }
}
