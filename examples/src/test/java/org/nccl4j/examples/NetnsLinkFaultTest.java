package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.launch.LocalLauncher;
import org.nccl4j.core.netns.NetnsHosts;
import org.nccl4j.examples.train.ReplicaDigest;

/**
 * The network between two hosts (network namespaces, one rank each, the Socket net) fails while
 * they train, at a random moment from JVM start to the AllReduces: a host's link goes down for
 * good (a pulled cable: packets to and from it are lost), or goes down for a second and comes
 * back. After the cut both ranks must end with REMOTE_ERROR, TIMEOUT or SYSTEM_ERROR within their
 * deadlines; after the flap both must finish with the same replica (TCP carries the lost packets
 * again). This kernel has no {@code netem} qdisc, so packet loss is the link's state, not a rate.
 * {@code -Dnccl4j.linkfault.trials=N} (default 2: a cut and a flap), {@code -Dnccl4j.linkfault.seed=S}.
 */
class NetnsLinkFaultTest {
    private static final int TRIALS = Integer.getInteger("nccl4j.linkfault.trials", 2);

    @Test
    void aCutLinkFailsBothRanksInTimeAndAFlapIsRiddenOut() throws Exception {
        String why = NetnsHosts.unavailableReason();
        assumeTrue(why == null, why);
        long seed = Long.getLong("nccl4j.linkfault.seed", System.nanoTime());
        Random rnd = new Random(seed);
        System.out.println("NetnsLinkFaultTest seed " + seed + " trials " + TRIALS);
        List<String> failures = new ArrayList<>();
        for (int t = 0; t < TRIALS; t++) {
            boolean flap = t % 2 == 1;
            int host = rnd.nextInt(2);
            long delay = rnd.nextInt(4000);
            String trial = String.format("trial %d: host %d's link %s after %d ms", t, host,
                    flap ? "down for 1 s" : "cut", delay);
            String verdict = runTrial(flap, host, delay, 29600 + t);
            System.out.println("NetnsLinkFaultTest " + trial + ": " + verdict);
            if (!verdict.startsWith("ok")) {
                failures.add(trial + ": " + verdict);
            }
        }
        assertTrue(failures.isEmpty(), "seed " + seed + ":\n" + String.join("\n", failures));
    }

    private static String runTrial(boolean flap, int host, long delay, int port) throws Exception {
        try (NetnsHosts h = NetnsHosts.create(2)) {
            // The flap must be ridden out: deadlines well above TCP's retransmission backoff.
            LocalLauncher l = Ranks.launcher("train", "--epochs", flap ? "150" : "1000")
                    .env("NCCL_COMM_ID", h.address(0) + ":" + port)
                    .env("NCCL4J_OP_TIMEOUT_MS", flap ? "30000" : "4000")
                    .env("NCCL4J_INIT_TIMEOUT_MS", flap ? "30000" : "8000")
                    .wrapper(h::wrap);
            long start = System.nanoTime();
            CompletableFuture<LocalLauncher.Outcome> run = CompletableFuture.supplyAsync(
                    () -> Ranks.run(l, 2, 2, null, Duration.ofSeconds(120)));
            Thread.sleep(delay);
            link(h, host, "down");
            if (flap) {
                Thread.sleep(1000);
                link(h, host, "up");
            }
            LocalLauncher.Outcome out = run.get(150, TimeUnit.SECONDS);
            double secs = (System.nanoTime() - start) / 1e9;
            String all = Ranks.all(out);
            if (out.timedOut()) {
                return "HANG: the ranks did not end within 120 s\n" + all;
            }
            StringBuilder results = new StringBuilder();
            List<ReplicaDigest> digests = ReplicaDigest.fromOutputs(out.output());
            for (int r = 0; r < 2; r++) {
                String error = Ranks.errorLine(out, r);
                boolean ok = flap ? out.exitCodes()[r] == 0 && digests.get(r) != null
                        : out.exitCodes()[r] == 2 && error != null && error.matches(Ranks.PEER_FAILURE);
                if (!ok) {
                    return "rank " + r + " ended with " + out.exitCodes()[r] + " and " + error + "\n" + all;
                }
                results.append(" rank ").append(r).append(flap ? " finished"
                        : " " + Ranks.shortly(error));
            }
            if (flap && digests.get(0).digest() != digests.get(1).digest()) {
                return "the replicas differ\n" + all;
            }
            return String.format("ok in %.1f s;%s", secs, results);
        }
    }

    private static void link(NetnsHosts h, int host, String state) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ip", "-n", h.namespace(host), "link", "set", "eth0", state)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "ip link set eth0 " + state + ": " + out);
    }
}
