package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.RedOp;
import org.nccl4j.core.launch.LocalLauncher;

/**
 * {@code NCCL4J_AUTH_KEY} on rank JVMs: with the same key file every rank inits and the data
 * crosses the Socket net ({@code NCCL_SHM_DISABLE=1}), the replicas identical; a rank with another
 * key is refused by the others (logged) and every rank fails init with an error, not a hang.
 * The root is rank 0's ({@code NCCL_COMM_ID}), so it has the ranks' key.
 */
class AuthKeyTest {
    @Test
    void ranksWithTheSameKeyTrainOverTheSocketNet(@TempDir Path dir) throws Exception {
        Path key = Files.writeString(dir.resolve("key"), "4f1c2a9be07d3356a1c0ffee12345678\n");
        LocalLauncher l = Ranks.launcher("train", "--epochs", "2").env("NCCL4J_AUTH_KEY_FILE", key.toString())
                .env("NCCL_SHM_DISABLE", "1").env("NCCL_COMM_ID", "127.0.0.1:" + freePort()).env("NCCL_DEBUG", "INFO");
        LocalLauncher.Outcome out = Ranks.run(l, 2, 2, null, Duration.ofSeconds(120));
        String all = Ranks.all(out);
        assertTrue(out.success(), all);
        for (int r = 0; r < 2; r++) {
            assertTrue(out.output().get(r).stream().anyMatch(x -> x.contains("NET/Socket : connections authenticated")), all);
            assertTrue(out.output().get(r).stream().anyMatch(x -> x.contains("via NET/Socket")), all);
        }
        assertEquals(TrainTest.sameDigestOnEveryRank(out).length(), 16, all);
        assertFalse(all.contains("authentication failed"), all);
        assertFalse(all.contains("4f1c2a9be07d3356"), "the key must never be printed: " + all);
    }

    @Test
    void commInitAllWithAKeyInItsConfigAuthenticatesItsRootToo() throws Exception {
        CommConfig cfg = CommConfig.builder().param("NCCL4J_AUTH_KEY", "a-key-given-in-the-comm-config").build();
        List<Communicator> comms = Nccl.commInitAll(2, cfg);
        ExecutorService pool = Executors.newFixedThreadPool(2); // the ranks block in their collectives
        try {
            List<CompletableFuture<int[]>> fs = comms.stream().map(c -> CompletableFuture.supplyAsync(() -> {
                int[] v = {c.userRank() + 1};
                c.allReduce(v, RedOp.SUM);
                return v;
            }, pool)).toList();
            for (CompletableFuture<int[]> f : fs) {
                assertEquals(3, f.get(60, TimeUnit.SECONDS)[0]);
            }
            // The comms' split hands its root the key too.
            List<CompletableFuture<Communicator>> kids = comms.stream()
                    .map(c -> CompletableFuture.supplyAsync(() -> c.split(0, c.userRank()), pool)).toList();
            for (CompletableFuture<Communicator> k : kids) {
                assertEquals(2, k.get(60, TimeUnit.SECONDS).count());
                k.get().close();
            }
        } finally {
            pool.shutdownNow();
            comms.forEach(Communicator::close);
        }
    }

    @Test
    void aRankWithAnotherKeyIsRefusedAndInitFailsEverywhere() throws Exception {
        LocalLauncher l = Ranks.launcher("hello").env("NCCL_COMM_ID", "127.0.0.1:" + freePort())
                .env("NCCL4J_INIT_TIMEOUT_MS", "6000").env("NCCL_DEBUG", "WARN")
                .envPerRank(r -> Map.of("NCCL4J_AUTH_KEY", r == 1 ? "another-key-of-rank-one-0000" : "the-key-of-ranks-0-and-2"));
        LocalLauncher.Outcome out = Ranks.run(l, 3, 3, null, Duration.ofSeconds(90));
        String all = Ranks.all(out);
        assertFalse(out.timedOut(), all);
        for (int r = 0; r < 3; r++) {
            assertEquals(2, out.exitCodes()[r], "rank " + r + " fails init: " + all);
        }
        // Rank 1's check-in reaches the root (in rank 0) and is refused there.
        assertTrue(out.output().get(0).stream().anyMatch(x -> x.contains("dropped connection")
                && x.contains("authentication failed")), all);
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
