package org.nccl4j.examples;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.nccl4j.core.launch.LocalLauncher;

/** Runs {@code nccl4j} subcommands as rank JVMs for tests and explains failures. */
final class Ranks {
    private Ranks() {
    }

    static LocalLauncher launcher(String... args) {
        return new LocalLauncher(Main.class.getName(), List.of(args)).echo(System.out, true);
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
        for (int r = 0; r < out.output().size(); r++) {
            for (String line : out.output().get(r)) {
                sb.append("[rank ").append(r).append("] ").append(line).append('\n');
            }
        }
        return sb.toString();
    }

    static List<String> lines(LocalLauncher.Outcome out, String prefix) {
        return out.output().stream().flatMap(List::stream).filter(l -> l.startsWith(prefix)).sorted()
                .collect(Collectors.toList());
    }

    /** The error line of a rank that a peer's death or a deadline ended (exit 2). */
    static final String PEER_FAILURE = "nccl4j (train|perf): (REMOTE_ERROR|TIMEOUT|SYSTEM_ERROR): .*";

    /** @return the rank's {@code nccl4j train:} or {@code nccl4j perf:} error line, or null */
    static String errorLine(LocalLauncher.Outcome out, int rank) {
        return out.output().get(rank).stream().filter(x -> x.matches("nccl4j (train|perf): .*")).findFirst().orElse(null);
    }

    /** @return an error line without its command, cut for a one-line verdict */
    static String shortly(String error) {
        String e = error.substring(error.indexOf(": ") + 2);
        return e.substring(0, Math.min(e.length(), 96));
    }
}
