package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.nccl4j.Nccl;
import org.nccl4j.core.launch.LocalLauncher;
import org.nccl4j.examples.matrix.RankJvms;

/**
 * The fault matrix, randomized and seeded: rank JVMs train ({@code nccl4j train}), and at a random
 * moment (JVM start, bootstrap, init, connect, or inside the step's AllReduce) one rank is
 * SIGKILLed, or SIGSTOPped past the op deadline (then killed, as a scheduler would), over SHM or
 * the Socket net, with the LL, LL128 or Simple protocol. Every survivor must end with an
 * NcclException of REMOTE_ERROR, TIMEOUT or SYSTEM_ERROR (exit 2, its message naming the result)
 * within its deadline, never hang, and
 * leave no {@code /dev/shm} segment behind. {@code -Dnccl4j.fault.trials=N} (CI: 4) and
 * {@code -Dnccl4j.fault.seed=S} (printed; replays a run).
 */
class FaultMatrixTest {
    private static final int TRIALS = Integer.getInteger("nccl4j.fault.trials", 4);
    private static final long OP_TIMEOUT_MS = 4000;

    @AfterEach
    void cleanUp() {
        RankJvms.killRankJvms();
    }

    @Test
    void everySurvivorFailsWithinItsDeadlineAndNothingLeaks() throws Exception {
        long seed = Long.getLong("nccl4j.fault.seed", System.nanoTime());
        Random rnd = new Random(seed);
        System.out.println("FaultMatrixTest seed " + seed + " trials " + TRIALS);
        List<String> failures = new ArrayList<>();
        for (int t = 0; t < TRIALS; t++) {
            int n = 2 + rnd.nextInt(3);
            boolean stop = rnd.nextInt(3) == 0;
            int victim = rnd.nextInt(n);
            long delay = rnd.nextInt(3500);
            String proto = List.of("LL", "LL128", "Simple").get(rnd.nextInt(3));
            boolean socket = rnd.nextBoolean();
            String trial = String.format("trial %d: %d ranks, %s rank %d after %d ms, %s over %s", t, n,
                    stop ? "SIGSTOP" : "SIGKILL", victim, delay, proto, socket ? "Socket" : "SHM");
            String verdict = runTrial(n, stop, victim, delay, proto, socket);
            System.out.println("FaultMatrixTest " + trial + ": " + verdict);
            if (!verdict.startsWith("ok")) {
                failures.add(trial + ": " + verdict);
            }
        }
        assertTrue(failures.isEmpty(), "seed " + seed + ":\n" + String.join("\n", failures));
    }

    private static String runTrial(int n, boolean stop, int victim, long delay, String proto, boolean socket)
            throws Exception {
        Set<String> shmBefore = shm();
        LocalLauncher l = Ranks.launcher("train", "--epochs", "1000").env("NCCL_PROTO", proto)
                .env("NCCL4J_OP_TIMEOUT_MS", Long.toString(OP_TIMEOUT_MS)).env("NCCL4J_INIT_TIMEOUT_MS", "8000")
                .expectExit(victim, 137);
        if (socket) {
            l.env("NCCL_SHM_DISABLE", "1");
        }
        long start = System.nanoTime();
        CompletableFuture<LocalLauncher.Outcome> run = CompletableFuture.supplyAsync(
                () -> Ranks.run(l, n, n, Nccl.getUniqueId().toString(), Duration.ofSeconds(120)));
        long pid = RankJvms.findRank(victim, Duration.ofSeconds(20));
        Thread.sleep(delay);
        signal(stop ? "-STOP" : "-KILL", pid);
        if (stop) {
            // Past the others' op deadline, then the scheduler's kill.
            Thread.sleep(OP_TIMEOUT_MS + 3000);
            signal("-KILL", pid);
        }
        LocalLauncher.Outcome out = run.get(150, TimeUnit.SECONDS);
        double secs = (System.nanoTime() - start) / 1e9;
        String all = Ranks.all(out);
        if (out.timedOut()) {
            return "HANG: the ranks did not end within 120 s\n" + all;
        }
        StringBuilder results = new StringBuilder();
        for (int r = 0; r < n; r++) {
            if (r == victim) {
                continue;
            }
            int code = out.exitCodes()[r];
            String error = out.output().get(r).stream().filter(x -> x.startsWith("nccl4j train: ")).findFirst().orElse(null);
            // A peer's death is the peer's error or a deadline, never a usage error (a wait
            // ended by the abort a failure set reports the failure's kind).
            if (code != 2 || error == null || !error.matches("nccl4j train: (REMOTE_ERROR|TIMEOUT|SYSTEM_ERROR): .*")) {
                return "rank " + r + " ended with " + code + " and " + error + "\n" + all;
            }
            results.append(" rank ").append(r).append(' ').append(error.substring(14, Math.min(error.length(), 110)));
        }
        Set<String> left = shm();
        left.removeAll(shmBefore);
        if (!left.isEmpty()) {
            return "LEAK: /dev/shm " + left + "\n" + all;
        }
        return String.format("ok in %.1f s;%s", secs, results);
    }

    private static void signal(String sig, long pid) throws IOException, InterruptedException {
        new ProcessBuilder("kill", sig, Long.toString(pid)).start().waitFor(5, TimeUnit.SECONDS);
    }

    private static Set<String> shm() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
            return s.map(p -> p.getFileName().toString()).filter(x -> x.startsWith("nccl4j")).collect(Collectors.toSet());
        }
    }
}
