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
 * good (a pulled cable: packets to and from it are lost), goes down for a second and comes back,
 * or drops a random 2-15% of the TCP packets it receives for 3 seconds (an {@code nftables}
 * rule: {@code numgen random}; this kernel has no {@code netem}, so no delays). After the cut both
 * ranks must end with REMOTE_ERROR, TIMEOUT or SYSTEM_ERROR within their deadlines; after the
 * flap and through the loss both must finish with the same replica (TCP carries the lost packets
 * again: nothing lost, nothing corrupted). {@code -Dnccl4j.linkfault.trials=N} (default 3: one of
 * each), {@code -Dnccl4j.linkfault.seed=S}.
 */
class NetnsLinkFaultTest {
    private static final int TRIALS = Integer.getInteger("nccl4j.linkfault.trials", 3);

    private enum Kind { CUT, FLAP, LOSS }

    @Test
    void aCutLinkFailsBothRanksInTimeAndAFlapIsRiddenOut() throws Exception {
        String why = NetnsHosts.unavailableReason();
        assumeTrue(why == null, why);
        long seed = Long.getLong("nccl4j.linkfault.seed", System.nanoTime());
        Random rnd = new Random(seed);
        System.out.println("NetnsLinkFaultTest seed " + seed + " trials " + TRIALS);
        List<String> failures = new ArrayList<>();
        for (int t = 0; t < TRIALS; t++) {
            Kind kind = Kind.values()[t % Kind.values().length];
            int host = rnd.nextInt(2);
            // Loss from JVM start to the AllReduces (a cut or flap also in the last epochs).
            long delay = rnd.nextInt(kind == Kind.LOSS ? 2500 : 4000);
            int lossPercent = 2 + rnd.nextInt(14);
            String trial = String.format("trial %d: host %d's link %s after %d ms", t, host, switch (kind) {
                case CUT -> "cut";
                case FLAP -> "down for 1 s";
                case LOSS -> "dropping " + lossPercent + "% of TCP packets for 3 s";
            }, delay);
            String verdict = runTrial(kind, lossPercent, host, delay, 29600 + t);
            System.out.println("NetnsLinkFaultTest " + trial + ": " + verdict);
            if (!verdict.startsWith("ok")) {
                failures.add(trial + ": " + verdict);
            }
        }
        assertTrue(failures.isEmpty(), "seed " + seed + ":\n" + String.join("\n", failures));
    }

    private static String runTrial(Kind kind, int lossPercent, int host, long delay, int port) throws Exception {
        boolean riddenOut = kind != Kind.CUT;
        if (kind == Kind.LOSS && !nftables()) {
            return "ok: skipped, no nft command (apt-get install nftables)";
        }
        try (NetnsHosts h = NetnsHosts.create(2)) {
            // A flap or loss must be ridden out: deadlines well above TCP's retransmission backoff.
            LocalLauncher l = Ranks.launcher("train", "--epochs", riddenOut ? "150" : "1000")
                    .env("NCCL_COMM_ID", h.address(0) + ":" + port)
                    .env("NCCL4J_OP_TIMEOUT_MS", riddenOut ? "30000" : "4000")
                    .env("NCCL4J_INIT_TIMEOUT_MS", riddenOut ? "30000" : "8000")
                    .wrapper(h::wrap);
            long start = System.nanoTime();
            CompletableFuture<LocalLauncher.Outcome> run = CompletableFuture.supplyAsync(
                    () -> Ranks.run(l, 2, 2, null, Duration.ofSeconds(120)));
            Thread.sleep(delay);
            long dropped = -1;
            switch (kind) {
                case CUT -> link(h, host, "down");
                case FLAP -> {
                    link(h, host, "down");
                    Thread.sleep(1000);
                    link(h, host, "up");
                }
                case LOSS -> {
                    nft(h, host, "add table inet nccl4j-loss");
                    nft(h, host, "add chain inet nccl4j-loss in { type filter hook input priority 0 ; }");
                    nft(h, host, "add rule inet nccl4j-loss in meta l4proto tcp numgen random mod 100 < "
                            + lossPercent + " counter drop");
                    Thread.sleep(3000);
                    String rules = nft(h, host, "list table inet nccl4j-loss");
                    nft(h, host, "delete table inet nccl4j-loss");
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("counter packets (\\d+)").matcher(rules);
                    dropped = m.find() ? Long.parseLong(m.group(1)) : 0;
                    if (dropped == 0) {
                        run.get(150, TimeUnit.SECONDS);
                        return "FAULT NOT APPLIED: no packet dropped (" + rules.strip() + ")";
                    }
                }
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
                boolean ok = riddenOut ? out.exitCodes()[r] == 0 && digests.get(r) != null
                        : out.exitCodes()[r] == 2 && error != null && error.matches(Ranks.PEER_FAILURE);
                if (!ok) {
                    return "rank " + r + " ended with " + out.exitCodes()[r] + " and " + error + "\n" + all;
                }
                results.append(" rank ").append(r).append(riddenOut ? " finished"
                        : " " + Ranks.shortly(error));
            }
            if (riddenOut && digests.get(0).digest() != digests.get(1).digest()) {
                return "the replicas differ\n" + all;
            }
            return String.format("ok in %.1f s;%s%s", secs, results, dropped >= 0 ? "; " + dropped + " packets dropped" : "");
        }
    }

    private static boolean nftables() {
        try {
            return new ProcessBuilder("nft", "--version").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** @return what nft printed */
    private static String nft(NetnsHosts h, int host, String rule) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", h.namespace(host), "nft"));
        cmd.addAll(List.of(rule.split(" ")));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "nft " + rule + ": " + out);
        return out;
    }

    private static void link(NetnsHosts h, int host, String state) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ip", "-n", h.namespace(host), "link", "set", "eth0", state)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "ip link set eth0 " + state + ": " + out);
    }
}
