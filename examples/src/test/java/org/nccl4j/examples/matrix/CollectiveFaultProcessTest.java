package org.nccl4j.examples.matrix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nccl4j.Nccl;
import org.nccl4j.core.launch.LocalLauncher;

/**
 * Failures during and before collectives with ranks as JVMs: a rank killed in the middle of an
 * AllReduce loop (over SHM and over the NET transport) turns into an error on every other rank
 * within a bounded time, and a {@code /dev/shm} too small for the SHM transport fails init with
 * an error that says what to do (and {@code NCCL_SHM_DISABLE=1} gets around it).
 */
class CollectiveFaultProcessTest {
    /** The progress deadline the ranks run with: even a rank that only notices by timing out ends in bounded time. */
    private static final int OP_TIMEOUT_MS = 10_000;
    /** How long after the kill every survivor must have reported and exited. */
    private static final Duration AFTER_KILL = Duration.ofSeconds(40);
    private static final Pattern FAILED = Pattern.compile("FAILED rank \\d (REMOTE_ERROR|TIMEOUT) .*");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "net"})
    void rankKilledDuringAllReduceFailsTheOthers(String transport) throws Exception {
        int nranks = 3;
        RankJvms.Watch watch = new RankJvms.Watch();
        LocalLauncher l = new LocalLauncher(MatrixRankMain.class.getName(),
                List.of("loop", Integer.toString(1 << 20), "100000000", "10"))
                .echo(watch, true)
                .env("NCCL4J_OP_TIMEOUT_MS", Integer.toString(OP_TIMEOUT_MS))
                .env("NCCL4J_INIT_TIMEOUT_MS", "30000")
                .env("NCCL_DEBUG", "INFO").env("NCCL_DEBUG_SUBSYS", "INIT");
        if (transport.equals("net")) {
            l.env("NCCL_SHM_DISABLE", "1");
        }
        String id = Nccl.getUniqueId().toString();
        CompletableFuture<LocalLauncher.Outcome> ranks =
                CompletableFuture.supplyAsync(() -> RankJvms.run(l, nranks, nranks, id, Duration.ofSeconds(150)));
        LocalLauncher.Outcome out;
        long kill;
        try {
            long victim = RankJvms.findRank(1, Duration.ofSeconds(30));
            boolean looping = watch.await(s -> s.startsWith("[rank 1] LOOP rank 1 iteration "), 3, Duration.ofSeconds(60));
            assertTrue(looping, "rank 1 never printed 3 LOOP lines");
            kill = System.nanoTime();
            ProcessHandle h = ProcessHandle.of(victim).orElseThrow(() -> new AssertionError("rank 1 (pid " + victim + ") is gone"));
            assertTrue(h.destroyForcibly(), "SIGKILL of rank 1 (pid " + victim + ") failed");
            out = ranks.get(3, TimeUnit.MINUTES);
        } finally {
            if (!ranks.isDone()) {
                RankJvms.killRankJvms(); // the test failed early: do not leave the ranks running into the next test
                ranks.handle((o, e) -> o).get(1, TimeUnit.MINUTES);
            }
        }
        long took = (System.nanoTime() - kill) / 1_000_000;
        String all = RankJvms.all(out) + "ranks ended " + took + " ms after the kill\n";
        System.out.println("[" + transport + "] survivors ended " + took + " ms after SIGKILL of rank 1");
        assertFalse(out.timedOut(), "a rank hung: the launcher's deadline passed\n" + all);
        ConnectionLines.assertEveryConnectionVia(out, transport.equals("net") ? "NET/Socket/" : "direct shared memory");
        for (int r = 0; r < nranks; r++) {
            if (r == 1) {
                continue;
            }
            List<String> failed = RankJvms.lines(out, r, "FAILED rank " + r + " ");
            assertEquals(1, failed.size(), "rank " + r + " did not report the failure\n" + all);
            assertTrue(FAILED.matcher(failed.get(0)).matches(), failed.get(0) + "\n" + all);
            assertEquals(3, out.exitCodes()[r], "rank " + r + " exit code\n" + all);
            assertEquals(1, RankJvms.lines(out, r, "ABORTED rank " + r + " in ").size(), "abort did not return\n" + all);
        }
        assertTrue(took < AFTER_KILL.toMillis(), "survivors took " + took + " ms after the kill\n" + all);
    }

    @Test
    void devShmTooSmallFailsInitWithTheFix() throws Exception {
        try (PrivateDevShm shm = privateDevShm()) {
            LocalLauncher l = RankJvms.launcher("matrix", "5").env("NCCL4J_INIT_TIMEOUT_MS", "20000")
                    .wrapper(r -> shm.wrap());
            long t0 = System.nanoTime();
            LocalLauncher.Outcome out = RankJvms.run(l, 2, 2, Nccl.getUniqueId().toString(), Duration.ofSeconds(90));
            long took = (System.nanoTime() - t0) / 1_000_000;
            String all = RankJvms.all(out);
            assertFalse(out.timedOut(), all);
            for (int r = 0; r < 2; r++) {
                List<String> failed = RankJvms.lines(out, r, "INIT FAILED rank " + r + " ");
                assertEquals(1, failed.size(), "rank " + r + " did not fail init\n" + all);
                String f = failed.get(0);
                assertEquals(2, out.exitCodes()[r], all);
                assertTrue(f.startsWith("INIT FAILED rank " + r + " SYSTEM_ERROR "), f + "\n" + all);
                assertTrue(f.contains("/dev/shm"), f);
                assertTrue(Pattern.compile("cannot allocate \\d+ bytes").matcher(f).find(), "no size in: " + f);
                assertTrue(f.contains("1.0 MiB") || f.contains("1048576 bytes") || f.contains("KiB) free")
                        || f.contains(" bytes free"), "free space not named in: " + f);
                assertTrue(f.contains("NCCL_SHM_DISABLE=1"), f);
                assertTrue(f.contains("--shm-size"), f);
            }
            assertTrue(took < 30_000, "took " + took + " ms");
            assertEquals(List.of(), shm.list(), "segments left behind in the namespace's /dev/shm");
        }
    }

    @Test
    void devShmTooSmallIsNoProblemWithShmDisabled() throws Exception {
        try (PrivateDevShm shm = privateDevShm()) {
            // Always the sample: the full product over NET is ProcessMatrixTest's job under -Pmatrix.
            LocalLauncher l = RankJvms.launcher("matrix", "10").env("NCCL4J_INIT_TIMEOUT_MS", "20000")
                    .env("NCCL_SHM_DISABLE", "1").env("NCCL_DEBUG", "INFO").env("NCCL_DEBUG_SUBSYS", "INIT")
                    .wrapper(r -> shm.wrap());
            LocalLauncher.Outcome out = RankJvms.run(l, 2, 2, Nccl.getUniqueId().toString(), Duration.ofSeconds(90));
            ProcessMatrixTest.assertMatrixPassed(out, 2);
            ConnectionLines.assertEveryConnectionVia(out, "NET/Socket/");
        }
    }

    /**
     * A private mount namespace whose {@code /dev/shm} is a 1 MiB tmpfs, held open by a sleeping
     * process; {@link #wrap()} runs a program inside it.
     */

    /** A 1 MiB /dev/shm: too small for a connection's buffers. */
    private static PrivateDevShm privateDevShm() throws IOException, InterruptedException {
        String why = PrivateDevShm.unavailableReason();
        assumeTrue(why == null, why);
        return PrivateDevShm.start(1);
    }
}
