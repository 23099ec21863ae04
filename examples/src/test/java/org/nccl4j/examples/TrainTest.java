package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nccl4j.Nccl;
import org.nccl4j.core.launch.LocalLauncher;

/** {@code nccl4j train}: the loss falls and every replica ends bit-identical, on rank JVMs and threads. */
class TrainTest {
    private static final Pattern EPOCH = Pattern.compile("^epoch +(\\d+) +loss ([0-9.]+) .*");

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void lossFallsAndReplicasStayIdentical(int nranks) {
        LocalLauncher.Outcome out = Ranks.run(Ranks.launcher("train", "--epochs", "6"), nranks, nranks,
                Nccl.getUniqueId().toString(), Duration.ofSeconds(120));
        assertTrue(out.success(), Ranks.all(out));
        List<String> lines = out.output().get(0);
        double[] loss = losses(lines, 6);
        assertTrue(loss[5] < loss[0] * 0.7, "loss did not fall: " + Ranks.all(out));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("replicas identical: yes (" + nranks + " ranks")),
                Ranks.all(out));
        assertTrue(lines.stream().anyMatch(l -> l.matches("# \\d+ steps: .* ms per step .*communication \\d+% of the time")),
                Ranks.all(out));
    }

    @Test
    void threadsTrainTheSameModelAsJvms() {
        // The same seed gives the same bits whatever carries the ranks: compare with 2 rank JVMs.
        Cli.Result threads = Cli.run("train", "--threads", "2", "--epochs", "2");
        assertEquals(0, threads.exitCode(), threads.text());
        LocalLauncher.Outcome jvms = Ranks.run(Ranks.launcher("train", "--epochs", "2"), 2, 2,
                Nccl.getUniqueId().toString(), Duration.ofSeconds(120));
        assertTrue(jvms.success(), Ranks.all(jvms));
        assertEquals(digest(threads.lines()), digest(jvms.output().get(0)), threads.text() + Ranks.all(jvms));
    }

    @Test
    void aDivergedReplicaIsCaught() {
        Cli.Result r = Cli.run("train", "--threads", "2", "--epochs", "1", "--diverge");
        assertNotEquals(0, r.exitCode(), r.text());
        assertTrue(r.lines().contains("replicas identical: no (1 of 4547 parameters differ between ranks)"), r.text());
    }

    private static double[] losses(List<String> lines, int epochs) {
        double[] loss = new double[epochs];
        int seen = 0;
        for (String l : lines) {
            Matcher m = EPOCH.matcher(l);
            if (m.matches()) {
                loss[Integer.parseInt(m.group(1)) - 1] = Double.parseDouble(m.group(2));
                seen++;
            }
        }
        assertEquals(epochs, seen, String.join("\n", lines));
        return loss;
    }

    private static String digest(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("replicas identical: yes")).findFirst()
                .map(l -> l.replaceAll(".*digest ", "")).orElseThrow(() -> new AssertionError(String.join("\n", lines)));
    }
}
