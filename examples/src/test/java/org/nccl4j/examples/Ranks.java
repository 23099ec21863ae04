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
}
