package org.nccl4j.examples.matrix;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.nccl4j.core.launch.LocalLauncher;
import org.nccl4j.core.matrix.MatrixCases;

/** Starts {@link MatrixRankMain} rank JVMs for the tests of this package, watches and explains them. */
public final class RankJvms {
    private RankJvms() {
    }

    /**
     * A print stream for {@link LocalLauncher#echo}: forwards every line to {@code System.out} and
     * keeps it, so a test can wait for a line while the ranks still run.
     */
    static final class Watch extends PrintStream {
        private final List<String> lines = new CopyOnWriteArrayList<>();

        Watch() {
            super(OutputStream.nullOutputStream(), true);
        }

        @Override
        public void println(String x) {
            lines.add(x);
            System.out.println(x);
        }

        /** @return how many lines seen so far match */
        long count(Predicate<String> p) {
            return lines.stream().filter(p).count();
        }

        /**
         * @param p       what to wait for
         * @param n       how many matching lines
         * @param timeout how long
         * @return whether they came in time
         */
        boolean await(Predicate<String> p, long n, Duration timeout) throws InterruptedException {
            long end = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < end) {
                if (count(p) >= n) {
                    return true;
                }
                Thread.sleep(20);
            }
            return false;
        }
    }

    /**
     * @param args {@link MatrixRankMain}'s arguments
     * @return a launcher echoing with rank prefixes; a collective that stops making progress fails
     *         after 60 s with TIMEOUT (naming its case) rather than running into the launcher's deadline
     */
    static LocalLauncher launcher(String... args) {
        return new LocalLauncher(MatrixRankMain.class.getName(), List.of(args)).echo(System.out, true)
                .env("NCCL4J_OP_TIMEOUT_MS", "60000");
    }

    /**
     * @param budget sample size
     * @return the matrix arguments (the full product when this JVM was asked for it)
     */
    static String[] matrixArgs(int budget) {
        List<String> a = new ArrayList<>(List.of("matrix", Integer.toString(budget)));
        if (MatrixCases.full()) {
            a.add("full");
        }
        if (Boolean.getBoolean("nccl4j.matrix.verbose")) {
            a.add("verbose"); // a line with the time of every case
        }
        return a.toArray(String[]::new);
    }

    static LocalLauncher.Outcome run(LocalLauncher l, int count, int size, String uniqueId, Duration timeout) {
        try {
            return l.run(count, size, uniqueId, timeout);
        } catch (IOException e) {
            throw new AssertionError("cannot start ranks: " + e.getMessage(), e);
        }
    }

    static String all(LocalLauncher.Outcome out) {
        StringBuilder sb = new StringBuilder();
        sb.append("exit codes ").append(java.util.Arrays.toString(out.exitCodes())).append(out.timedOut() ? " TIMED OUT" : "")
                .append('\n');
        for (int r = 0; r < out.output().size(); r++) {
            for (String line : out.output().get(r)) {
                sb.append("[rank ").append(r).append("] ").append(line).append('\n');
            }
        }
        return sb.toString();
    }

    static List<String> lines(LocalLauncher.Outcome out, int rank, String prefix) {
        return out.output().get(rank).stream().filter(l -> l.startsWith(prefix)).collect(Collectors.toList());
    }

    /**
     * Finds the rank JVM whose environment says {@code NCCL4J_RANK=rank} (root reads any
     * /proc/pid/environ). Only {@code java} processes count: a rank's own short-lived children
     * (tools it runs) inherit its environment.
     */
    public static long findRank(int rank, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        String needle = "\0NCCL4J_RANK=" + rank + "\0";
        while (System.nanoTime() < end) {
            for (ProcessHandle h : rankJvms()) {
                try {
                    String env = "\0" + java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + h.pid() + "/environ"),
                            java.nio.charset.StandardCharsets.ISO_8859_1);
                    if (env.contains(needle)) {
                        return h.pid();
                    }
                } catch (IOException ignored) {
                    // Ended, or not readable.
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("rank " + rank + " JVM not found");
    }

    /** @return the live {@code java} processes this JVM started, directly or through a wrapper */
    static List<ProcessHandle> rankJvms() {
        return ProcessHandle.current().descendants()
                .filter(h -> h.info().command().map(c -> c.endsWith("/java")).orElse(false)).toList();
    }

    /** Kills (SIGKILL) every java process this JVM started: cleanup after a test failed with ranks still running. */
    public static void killRankJvms() {
        rankJvms().forEach(ProcessHandle::destroyForcibly);
    }

    /** @return whether {@code tool} is an executable on PATH */
    public static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
            if (new java.io.File(dir, tool).canExecute()) {
                return true;
            }
        }
        return false;
    }
}
