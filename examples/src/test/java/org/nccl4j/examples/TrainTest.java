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

/**
 * {@code nccl4j train}: the loss falls and every replica ends bit-identical, on rank JVMs and
 * threads. The replicas are compared here, from the digest line each rank prints, and the
 * launcher's own verdict is checked against those lines.
 */
class TrainTest {
    private static final Pattern EPOCH = Pattern.compile("^epoch +(\\d+) +loss ([0-9.]+) .*");
    private static final Pattern DIGEST = Pattern.compile("rank (\\d+) digest ([0-9a-f]{16}) \\(4547 parameters\\)");

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void lossFallsAndEveryRankEndsWithTheSameDigest(int nranks) {
        // This test is the launcher: the ranks only print, the comparison is below.
        LocalLauncher.Outcome out = Ranks.run(Ranks.launcher("train", "--epochs", "6"), nranks, nranks,
                Nccl.getUniqueId().toString(), Duration.ofSeconds(120));
        assertTrue(out.success(), Ranks.all(out));
        List<String> lines = out.output().get(0);
        double[] loss = losses(lines, 6);
        assertTrue(loss[5] < loss[0] * 0.7, "loss did not fall: " + Ranks.all(out));
        assertTrue(lines.stream().anyMatch(l -> l.matches("# \\d+ steps: .* ms per step .*communication \\d+% of the time")),
                Ranks.all(out));
        assertTrue(lines.stream().anyMatch(l -> l.matches("# allreduce per step, its own time: median [0-9.]+ (us|ms), "
                + "90th percentile [0-9.]+ (us|ms), 99th [0-9.]+ (us|ms); mean in the first epoch [0-9.]+ (us|ms), "
                + "in the last [0-9.]+ (us|ms)")), Ranks.all(out));
        sameDigestOnEveryRank(out);
    }

    @Test
    void aRankKilledMidTrainingLeavesTheOthersToShrinkAndFinishWithIdenticalReplicas() {
        // This test is the launcher: rank 2 is to end by SIGKILL, the others with 0.
        LocalLauncher l = Ranks.launcher("train", "--epochs", "4", "--kill-rank", "2", "--kill-epoch", "2")
                .expectExit(2, 137);
        LocalLauncher.Outcome out = Ranks.run(l, 4, 4, Nccl.getUniqueId().toString(), Duration.ofSeconds(120));
        assertEquals(137, out.exitCodes()[2], "rank 2 is killed by SIGKILL: " + Ranks.all(out));
        assertTrue(out.success(), Ranks.all(out));
        List<String> victim = out.output().get(2);
        assertTrue(victim.contains("rank 2: killing its own JVM (SIGKILL) at the start of epoch 2 (--kill-rank)"),
                Ranks.all(out));
        assertTrue(digestLines(victim).isEmpty(), Ranks.all(out));
        List<String> lines = out.output().get(0);
        // Every survivor learns of it from its AllReduce, also those that never waited on rank 2.
        assertTrue(lines.stream().anyMatch(x -> x.startsWith("# epoch 2: an AllReduce failed (REMOTE_ERROR: ")),
                Ranks.all(out));
        assertTrue(lines.contains("# rank 2 left: the 3 ranks left shrank the communicator (rank 0 is now rank 0 of 3)"),
                Ranks.all(out));
        assertTrue(lines.contains("# 3 ranks carry on: 1000 samples each, 32 steps per epoch; epoch 2 again from its start"),
                Ranks.all(out));
        double[] loss = losses(lines, 4);
        assertTrue(loss[3] < loss[0] * 0.7, "loss did not fall: " + Ranks.all(out));
        String d = digestOf(digestLines(out.output().get(0)), 0, Ranks.all(out));
        for (int r : new int[] {1, 3}) {
            assertEquals(d, digestOf(digestLines(out.output().get(r)), r, Ranks.all(out)), "rank " + r);
        }
    }

    @Test
    void killOptionsOutsideRankJvmsOrRangeAreRefused() {
        Cli.Result r = Cli.run("train", "--threads", "2", "--kill-rank", "1");
        assertEquals(2, r.exitCode(), r.text());
        assertTrue(r.stderr().contains("--kill-rank kills a rank's JVM: it runs with rank JVMs, not --threads"), r.text());
        r = Cli.run("train", "--nranks", "2", "--kill-rank", "0");
        assertEquals(2, r.exitCode(), r.text());
        assertTrue(r.stderr().contains("--kill-rank 0: name a rank other than 0"), r.text());
        r = Cli.run("train", "--nranks", "2", "--kill-rank", "1", "--kill-epoch", "30");
        assertEquals(2, r.exitCode(), r.text());
        assertTrue(r.stderr().contains("--kill-epoch 30 is not one of the epochs 1 to 20"), r.text());
    }

    @Test
    void theLauncherComparesTheDigestsOfEveryRank() {
        Cli.Result r = Cli.run("train", "--nranks", "3", "--epochs", "1", "--samples", "1200");
        assertEquals(0, r.exitCode(), r.text());
        List<String> digests = digestLines(r.lines());
        assertEquals(3, digests.size(), r.text());
        String d = digests.get(0).replaceAll(DIGEST.pattern(), "$2");
        for (int rank = 0; rank < 3; rank++) {
            assertTrue(digests.contains("rank " + rank + " digest " + d + " (4547 parameters)"), r.text());
        }
        assertEquals("replicas identical: yes (3 ranks, 4547 parameters, digest " + d + ")", r.lines().getLast(), r.text());
    }

    @ParameterizedTest
    @ValueSource(strings = {"--nranks", "--threads"})
    void aDivergedReplicaMakesTheLauncherReportReplicasDiffer(String ranks) {
        Cli.Result r = Cli.run("train", ranks, "2", "--epochs", "1", "--diverge");
        assertEquals(1, r.exitCode(), r.text());
        List<String> digests = digestLines(r.lines());
        assertEquals(2, digests.size(), r.text());
        String d0 = digestOf(digests, 0, r.text());
        String d1 = digestOf(digests, 1, r.text());
        assertNotEquals(d0, d1, r.text());
        assertEquals("replicas differ: digest " + d0 + " (4547 parameters) on rank 0; digest " + d1
                + " (4547 parameters) on rank 1", r.lines().getLast(), r.text());
    }

    @Test
    void threadsTrainTheSameModelAsJvms() {
        // The same seed gives the same bits whatever carries the ranks: compare with 2 rank JVMs.
        Cli.Result threads = Cli.run("train", "--threads", "2", "--epochs", "2");
        assertEquals(0, threads.exitCode(), threads.text());
        List<String> digests = digestLines(threads.lines());
        assertEquals(2, digests.size(), threads.text());
        String d = digestOf(digests, 0, threads.text());
        assertEquals(d, digestOf(digests, 1, threads.text()), threads.text());
        assertEquals("replicas identical: yes (2 ranks, 4547 parameters, digest " + d + ")", threads.lines().getLast());
        LocalLauncher.Outcome jvms = Ranks.run(Ranks.launcher("train", "--epochs", "2"), 2, 2,
                Nccl.getUniqueId().toString(), Duration.ofSeconds(120));
        assertTrue(jvms.success(), Ranks.all(jvms));
        assertEquals(d, sameDigestOnEveryRank(jvms), threads.text() + Ranks.all(jvms));
    }

    /**
     * Every rank JVM of a train run printed exactly one digest line, naming itself, and all
     * those digests are equal; no rank judged the replicas itself.
     *
     * @return the digest
     */
    static String sameDigestOnEveryRank(LocalLauncher.Outcome out) {
        String first = null;
        for (int r = 0; r < out.output().size(); r++) {
            List<String> mine = digestLines(out.output().get(r));
            assertEquals(1, mine.size(), "rank " + r + " digest lines: " + Ranks.all(out));
            String d = digestOf(mine, r, Ranks.all(out));
            first = first == null ? d : first;
            assertEquals(first, d, "rank " + r + " ends with other weights than rank 0: " + Ranks.all(out));
            assertTrue(out.output().get(r).stream().noneMatch(l -> l.startsWith("replicas")), Ranks.all(out));
        }
        return first;
    }

    private static List<String> digestLines(List<String> lines) {
        return lines.stream().filter(l -> DIGEST.matcher(l).matches()).toList();
    }

    private static String digestOf(List<String> digestLines, int rank, String context) {
        for (String l : digestLines) {
            Matcher m = DIGEST.matcher(l);
            if (m.matches() && Integer.parseInt(m.group(1)) == rank) {
                return m.group(2);
            }
        }
        throw new AssertionError("no digest line of rank " + rank + " in:\n" + context);
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
}
