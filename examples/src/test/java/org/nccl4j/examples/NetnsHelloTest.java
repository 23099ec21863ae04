package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nccl4j.core.launch.LocalLauncher;
import org.nccl4j.core.netns.NetnsHosts;

/** Four ranks spread over 2 and 4 network-namespace hosts: bootstrap crosses them, nodes are counted. */
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
}
