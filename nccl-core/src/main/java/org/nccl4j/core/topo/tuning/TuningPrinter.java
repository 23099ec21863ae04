package org.nccl4j.core.topo.tuning;

import org.nccl4j.core.debug.CFormat;
import org.nccl4j.core.proto.Protocol;
import java.util.ArrayList;
import java.util.List;

/**
 * Text forms of a {@link TuningModel}: NCCL's INFO/TUNING table and the simulator's {@code TUNE}
 * and {@code TIME} lines (formats of the golden reference outputs).
 */
public final class TuningPrinter {
    /** The sizes of the golden {@code TIME} lines: 8 B to 1 GiB. */
    public static final long[] TIME_SIZES = {8, 1024, 8192, 65536, 262144, 1L << 20, 4L << 20, 16L << 20, 64L << 20,
        256L << 20, 1L << 30};
    private static final Algorithm[] TIMED_ALGOS = {Algorithm.TREE, Algorithm.RING};

    private TuningPrinter() {
    }

    /**
     * @param model a tuning model
     * @return {@code TUNE <coll> <algo> <proto> lat %.4f bw %.4f} for every collective, algorithm
     *         and protocol, in NCCL's order
     */
    public static List<String> tuneLines(TuningModel model) {
        List<String> out = new ArrayList<>();
        for (CollFunc c : CollFunc.values()) {
            for (Algorithm a : Algorithm.NCCL) {
                for (Protocol p : Protocol.values()) {
                    out.add("TUNE " + c.ncclName() + " " + a.ncclName() + " " + p.ncclName() + " lat "
                            + CFormat.fixed(model.latency(c, a, p), 4) + " bw " + CFormat.fixed(model.bandwidth(c, a, p), 4));
                }
            }
        }
        return out;
    }

    /**
     * @param model a tuning model
     * @param sizes byte counts
     * @return per collective and size: the predicted time of Tree and Ring with each protocol
     *         (one pipelined op, all channels; -1 = disabled) and the fastest ({@code -/-} if none)
     */
    public static List<String> timeLines(TuningModel model, long[] sizes) {
        List<String> out = new ArrayList<>();
        for (CollFunc c : CollFunc.values()) {
            for (long size : sizes) {
                StringBuilder sb = new StringBuilder("TIME ").append(c.ncclName()).append(' ').append(size);
                float best = AlgoSelector.NO_TIME;
                String winner = "-/-";
                for (Algorithm a : TIMED_ALGOS) {
                    for (Protocol p : Protocol.values()) {
                        float t = model.algoTime(c, size, a, p, 1, 0);
                        String name = a.ncclName() + "/" + p.ncclName();
                        sb.append(' ').append(name).append('=').append(CFormat.fixed(t, 3));
                        if (t >= 0 && t < best) {
                            best = t;
                            winner = name;
                        }
                    }
                }
                sb.append(" -> ").append(winner).append(' ').append(CFormat.fixed(best, 3)).append(" us");
                out.add(sb.toString());
            }
        }
        return out;
    }

    /**
     * @param model a tuning model
     * @return NCCL's INFO/TUNING table: header, {@code Max NThreads}, then latency/bandwidth per collective
     */
    public static List<String> infoTable(TuningModel model) {
        List<String> out = new ArrayList<>();
        StringBuilder header = new StringBuilder("Latency/AlgBw |");
        StringBuilder threads = new StringBuilder(" Max NThreads |");
        for (Algorithm a : Algorithm.NCCL) {
            for (Protocol p : Protocol.values()) {
                header.append(String.format(" %7s/%6s |", a.ncclName(), p.ncclName()));
                threads.append(String.format(" %14d |", model.maxThreads(a, p)));
            }
        }
        out.add(header.toString());
        out.add(threads.toString());
        for (CollFunc c : CollFunc.values()) {
            StringBuilder line = new StringBuilder(String.format("%13s |", c.ncclName()));
            for (Algorithm a : Algorithm.NCCL) {
                for (Protocol p : Protocol.values()) {
                    line.append(CFormat.fixed(model.latency(c, a, p), 8, 1)).append('/')
                            .append(CFormat.fixed(model.bandwidth(c, a, p), 6, 1)).append(" |");
                }
            }
            out.add(line.toString());
        }
        return out;
    }
}
