package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

/** The rows of an {@code nccl4j perf} table, parsed back. */
record PerfTable(List<String> lines, List<Row> rows) {
    /**
     * One row.
     *
     * @param size          size column
     * @param count         count column
     * @param type          type column
     * @param redop         redop column
     * @param root          root column
     * @param wrongOutPlace out-of-place #wrong ("N/A" or a number)
     * @param wrongInPlace  in-place #wrong
     * @param busBwOut      out-of-place busbw
     * @param algo          the algo column, as {@code Ring/Simple/1}
     */
    record Row(long size, long count, String type, String redop, int root, String wrongOutPlace, String wrongInPlace,
               double busBwOut, String algo) {
    }

    /** @param lines everything the command printed (other lines, e.g. JVM warnings, are skipped) */
    static PerfTable parse(List<String> lines) {
        List<Row> rows = new ArrayList<>();
        for (String l : lines) {
            String[] f = l.trim().split("\\s+");
            if (l.startsWith("#") || f.length != 14 || !f[0].matches("\\d+")) {
                continue;
            }
            rows.add(new Row(Long.parseLong(f[0]), Long.parseLong(f[1]), f[2], f[3], Integer.parseInt(f[4]), f[8], f[12],
                    Double.parseDouble(f[7]), f[13]));
        }
        return new PerfTable(lines, rows);
    }

    /** Asserts one row for every size from min to max by factor (perf's -b, -e, -f), none with wrong elements, and an OK footer. */
    void assertCleanSweep(long min, long max, long factor) {
        String all = String.join("\n", lines);
        List<Long> sizes = rows.stream().map(Row::size).toList();
        List<Long> expected = new ArrayList<>();
        for (long s = min; s <= max; s *= factor) {
            expected.add(s);
        }
        assertEquals(expected, sizes, all);
        assertNoWrong();
    }

    /** Asserts that every checked placement has 0 wrong elements and the footer says OK. */
    void assertNoWrong() {
        String all = String.join("\n", lines);
        assertTrue(!rows.isEmpty(), all);
        for (Row r : rows) {
            assertEquals("0", r.wrongOutPlace(), all);
            assertTrue(r.wrongInPlace().equals("0") || r.wrongInPlace().equals("N/A"), all);
        }
        assertTrue(lines.contains("# Out of bounds values : 0 OK"), all);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("# Avg bus bandwidth    : ")), all);
    }
}
