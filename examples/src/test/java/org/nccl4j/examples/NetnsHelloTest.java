package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nccl4j.core.launch.LocalLauncher;
import org.nccl4j.core.netns.NetnsHosts;

/**
 * Ranks spread over network-namespace hosts: bootstrap crosses them, nodes are counted, and hosts
 * with different numbers of ranks (so a different channel budget each) still agree on channels.
 */
class NetnsHelloTest {
    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void fourRanksOnHosts(int hosts) throws IOException {
        String why = NetnsHosts.unavailableReason();
        assumeTrue(why == null, why);
        try (NetnsHosts h = NetnsHosts.create(hosts)) {
            int nranks = 4;
            LocalLauncher l = Ranks.launcher("hello")
                    .env("NCCL_COMM_ID", h.address(0) + ":29" + (500 + hosts))
                    .wrapper(r -> h.wrap(r * hosts / nranks));
            LocalLauncher.Outcome out = Ranks.run(l, nranks, nranks, null, Duration.ofSeconds(90));
            assertTrue(out.success(), Ranks.all(out));
            List<String> lines = Ranks.lines(out, "rank ");
            assertEquals(nranks, lines.size(), Ranks.all(out));
            for (int r = 0; r < nranks; r++) {
                String host = h.hostname(r * hosts / nranks);
                assertTrue(lines.get(r).startsWith("rank " + r + " of 4: nodes " + hosts + " host " + host + " net Socket"),
                        lines.get(r));
            }
        }
    }

    @Test
    void threeRanksDealtUnevenlyOverTwoHostsTrainToOneReplica() throws IOException {
        String why = NetnsHosts.unavailableReason();
        assumeTrue(why == null, why);
        try (NetnsHosts h = NetnsHosts.create(2)) {
            // Ranks 0 and 2 on host 0, rank 1 alone on host 1: a host rank's channels are bounded by
            // its host's cores per local rank, so the hosts would keep different channel counts.
            LocalLauncher l = Ranks.launcher("train", "--epochs", "3")
                    .env("NCCL_COMM_ID", h.address(0) + ":29510")
                    .wrapper(r -> h.wrap(r % 2));
            LocalLauncher.Outcome out = Ranks.run(l, 3, 3, null, Duration.ofSeconds(90));
            assertTrue(out.success(), Ranks.all(out));
            TrainTest.sameDigestOnEveryRank(out);
        }
    }
}
