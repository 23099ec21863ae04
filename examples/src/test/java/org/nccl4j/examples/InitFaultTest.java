package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.nccl4j.Nccl;
import org.nccl4j.core.launch.LocalLauncher;
import org.nccl4j.examples.matrix.RankJvms;

/** Init failures across rank JVMs: every one ends in a clear error within its deadline. */
class InitFaultTest {
    @Test
    void bogusNetFailsFastListingCandidates() {
        long t0 = System.nanoTime();
        LocalLauncher.Outcome out = Ranks.run(Ranks.launcher("hello").env("NCCL_NET", "bogus"), 2, 2,
                Nccl.getUniqueId().toString(), Duration.ofSeconds(60));
        assertFalse(out.success());
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(20).toNanos(), "took too long");
        String all = Ranks.all(out);
        for (int r = 0; r < 2; r++) {
            assertEquals(2, out.exitCodes()[r], all);
        }
        assertTrue(all.contains("network bogus not found"), all);
        assertTrue(all.contains("Socket (skipped: NCCL_NET=bogus)"), all);
        assertTrue(all.contains("IB (skipped: NCCL_NET=bogus)"), all);
    }

    @Test
    void missingRankIsNamedByEveryoneWithinTheDeadline() {
        long t0 = System.nanoTime();
        LocalLauncher.Outcome out = Ranks.run(Ranks.launcher("hello").env("NCCL4J_INIT_TIMEOUT_MS", "8000"), 3, 4,
                Nccl.getUniqueId().toString(), Duration.ofSeconds(60));
        long took = (System.nanoTime() - t0) / 1_000_000;
        String all = Ranks.all(out);
        assertFalse(out.timedOut(), all);
        for (int r = 0; r < 3; r++) {
            assertEquals(2, out.exitCodes()[r], all);
            assertTrue(String.join("\n", out.output().get(r)).contains("TIMEOUT"), all);
        }
        assertTrue(all.contains("rank 3 of 4 never checked in") || all.contains("ranks 3 of 4 never checked in"), all);
        assertTrue(took < 30_000, "took " + took + " ms");
    }

    @Test
    void twoRanksClaimingOneRankNumberAreRefused() {
        LocalLauncher l = Ranks.launcher("hello").env("NCCL4J_INIT_TIMEOUT_MS", "8000")
                .envPerRank(r -> r == 2 ? Map.of("NCCL4J_RANK", "1") : Map.of());
        LocalLauncher.Outcome out = Ranks.run(l, 3, 3, Nccl.getUniqueId().toString(), Duration.ofSeconds(60));
        String all = Ranks.all(out);
        assertFalse(out.timedOut(), all);
        for (int r = 0; r < 3; r++) { // the root tells every rank, the two claimants and the late one alike
            assertEquals(2, out.exitCodes()[r], all);
            assertEquals(1, out.output().get(r).stream().filter(x -> x.matches("nccl4j hello: INVALID_USAGE: rank [01] of 3: "
                    + "bootstrap root: rank 1 of 3 checked in twice \\(from \\S+ and \\S+\\) \\(hint: .*")).count(),
                    "rank " + r + ":\n" + all);
        }
    }

    @Test
    void rankKilledMidInitMakesTheOthersFail() throws Exception {
        String id = Nccl.getUniqueId().toString();
        LocalLauncher first = Ranks.launcher("hello").env("NCCL4J_INIT_TIMEOUT_MS", "8000")
                .env("NCCL4J_CONNECT_TIMEOUT_MS", "2000");
        CompletableFuture<LocalLauncher.Outcome> ranks012 =
                CompletableFuture.supplyAsync(() -> Ranks.run(first, 3, 4, id, Duration.ofSeconds(60)));
        long rank1 = RankJvms.findRank(1, Duration.ofSeconds(20));
        Thread.sleep(1000); // let it check in with the root
        ProcessHandle.of(rank1).ifPresent(ProcessHandle::destroyForcibly); // SIGKILL
        LocalLauncher last = Ranks.launcher("hello").env("NCCL4J_INIT_TIMEOUT_MS", "8000")
                .env("NCCL4J_CONNECT_TIMEOUT_MS", "2000").envPerRank(r -> Map.of("NCCL4J_RANK", "3"));
        LocalLauncher.Outcome out3 = Ranks.run(last, 1, 4, id, Duration.ofSeconds(60));
        LocalLauncher.Outcome out = ranks012.get();
        String all = Ranks.all(out) + Ranks.all(out3);
        assertFalse(out.timedOut() || out3.timedOut(), all);
        assertEquals(137, out.exitCodes()[1], all); // the victim: SIGKILL
        // Every survivor ends in an NcclException (hello's exit 2 with its message), none in a crash.
        for (List<String> survivor : List.of(out.output().get(0), out.output().get(2), out3.output().get(0))) {
            assertEquals(1, survivor.stream().filter(l -> l.startsWith("nccl4j hello: ")).count(), all);
        }
        assertEquals(2, out.exitCodes()[0], all);
        assertEquals(2, out.exitCodes()[2], all);
        assertEquals(2, out3.exitCodes()[0], all);
    }
}
