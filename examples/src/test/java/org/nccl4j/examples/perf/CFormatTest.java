package org.nccl4j.examples.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.nccl4j.core.debug.CFormat;

/** C's printf, as glibc prints it (expected values taken from {@code printf(1)}). */
class CFormatTest {
    @Test
    void fitKeepsAsManyDecimalsAsTheWidthAllows() {
        assertEquals("1188.54", FloatStr.fit(1188.54, 7));
        assertEquals("16101.3", FloatStr.fit(16101.345, 7));
        assertEquals(" 123457", FloatStr.fit(123456.7, 7));
        assertEquals("1234568", FloatStr.fit(1234567.8, 7));
        assertEquals("1.2e+07", FloatStr.fit(12345678.9, 7));
        assertEquals("   0.00", FloatStr.fit(0.004, 7));
        assertEquals("  1.00", FloatStr.fit(1.0, 6));
        assertEquals(" 1e+06", FloatStr.fit(1234567.0, 6));
        assertEquals("  0.12", FloatStr.fit(0.125, 6)); // half to even on the exact binary value, as glibc
        assertEquals("   inf", FloatStr.fit(Double.POSITIVE_INFINITY, 6));
    }

    @Test
    void gIsCsPercentG() {
        assertEquals("0.0575717", CFormat.g(0.0575717));
        assertEquals("0.464272", CFormat.g(0.464272));
        assertEquals("1.23457e+06", CFormat.g(1234567));
        assertEquals("1.234e-05", CFormat.g(0.00001234));
        assertEquals("100000", CFormat.g(100000));
        assertEquals("1e+06", CFormat.g(999999.5));
        assertEquals("12.5", CFormat.g(12.5));
        assertEquals("0", CFormat.g(0));
        assertEquals("3.14159", CFormat.g(3.14159265));
        assertEquals("1e-05", CFormat.g(1e-5));
        assertEquals("1.23457e+08", CFormat.g(123456789));
    }

    @Test
    void sizesTakeKmgSuffixes() {
        assertEquals(8, PerfSettings.parseSize("8"));
        assertEquals(1024, PerfSettings.parseSize("1K"));
        assertEquals(64L << 20, PerfSettings.parseSize("64M"));
        assertEquals(3L << 29, PerfSettings.parseSize("1.5G"));
        assertEquals(2048, PerfSettings.parseSize("2k"));
    }
}
