package org.nccl4j.examples.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.nccl4j.core.debug.CFormat;

/**
 * The text nccl-tests prints, line for line: preamble, device lines, the column header, one row
 * per size and the footer (nccl-tests {@code src/common.cu}, {@code src/util.cu}).
 */
public final class PerfReport {
    /** The three lines of the column header, exactly as nccl-tests prints them (trailing blanks included). */
    public static final List<String> COLUMN_HEADER = List.of(
            String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          ",
                    "", "", "", "", ""),
            String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %s",
                    "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
                    "time", "algbw", "busbw", "#wrong", " algo"),
            String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %s",
                    "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", ""));

    private PerfReport() {
    }

    /**
     * The lines before the device list.
     *
     * @param s settings
     * @return {@code # nThread ...}, the blocking note if any, {@code #}, {@code # Using devices}
     */
    public static List<String> preamble(PerfSettings s) {
        List<String> lines = new ArrayList<>();
        lines.add("# Collective test starting: " + s.coll().program());
        lines.add(String.format(Locale.ROOT,
                "# nThread %d nGpus %d minBytes %d maxBytes %d step: %d(%s) warmup iters: %d iters: %d agg iters: %d validation: %d graph: %d",
                s.nThreads(), 1, s.minBytes(), s.maxBytes(), s.stepFactor() > 1 ? s.stepFactor() : s.stepBytes(),
                s.stepFactor() > 1 ? "factor" : "bytes", s.warmupIters(), s.iters(), 1, s.check(), 0));
        if (s.blocking() == 1) {
            lines.add("# Blocking Enabled: wait for completion and barrier after each collective ");
        } else if (s.blocking() == 2 && s.computeNanos() > 0) {
            lines.add(String.format(Locale.ROOT, "# Blocking calls, each after a compute step of %d us on every rank: "
                    + "time is the median over calls of the call's least time over ranks", s.computeNanos() / 1000));
        } else if (s.blocking() == 2) {
            lines.add("# Blocking calls: each returns when its collective is done, back to back, no barrier");
        }
        lines.add("#");
        lines.add("# Using devices");
        return lines;
    }

    /**
     * One rank's device line, nccl-tests' {@code #  Rank %2d Group %2d Pid %6d on %10s device %2d [bus id] name}.
     *
     * @param rank     the rank
     * @param pid      its process id
     * @param host     its host name
     * @param device   its device ordinal
     * @param busId    its device's bus id
     * @param name     its device's name
     * @return the line
     */
    public static String deviceLine(int rank, long pid, String host, int device, String busId, String name) {
        return String.format(Locale.ROOT, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s",
                rank, 0, pid, host, device, busId, name);
    }

    /**
     * The first columns of a row.
     *
     * @param bytes the size column: the larger of the send and receive bytes
     * @param count the count passed to the collective
     * @param type  element type name
     * @param redop reduction name or {@code none}
     * @param root  root, or -1
     * @return {@code %12li  %12li  %8s  %6s  %6i}
     */
    public static String rowStart(long bytes, long count, String type, String redop, int root) {
        return String.format(Locale.ROOT, "%12d  %12d  %8s  %6s  %6d", bytes, count, type, redop, root);
    }

    /**
     * The four columns of one placement (out-of-place or in-place).
     *
     * @param usec   time per operation in microseconds
     * @param algBw  algorithm bandwidth, GB/s
     * @param busBw  bus bandwidth, GB/s
     * @param wrong  wrong elements summed over ranks, or -1 for N/A (no check)
     * @return {@code   time  algbw  busbw  #wrong}
     */
    public static String rowPart(double usec, double algBw, double busBw, long wrong) {
        String w = wrong < 0 ? "   N/A" : CFormat.pad(CFormat.g(wrong), 6);
        return "  " + FloatStr.fit(usec, 7) + "  " + FloatStr.fit(algBw, 6) + "  " + FloatStr.fit(busBw, 6) + "  " + w;
    }

    /**
     * The footer.
     *
     * @param errors     checks with wrong elements, summed over ranks
     * @param avgBusBw   mean bus bandwidth over every row and placement
     * @param minBw      {@code NCCL_TESTS_MIN_BW}, or a negative number when unset
     * @return the lines
     */
    public static List<String> footer(long errors, double avgBusBw, double minBw) {
        String bwVerdict = minBw < 0 ? "" : avgBusBw < minBw * 0.9 ? "FAILED" : "OK";
        return List.of(
                String.format(Locale.ROOT, "# %-20s : %d %s", "Out of bounds values", errors, errors != 0 ? "FAILED" : "OK"),
                String.format(Locale.ROOT, "# %-20s : %s %s", "Avg bus bandwidth", CFormat.g(avgBusBw), bwVerdict),
                "#");
    }
}
