package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.core.launch.LocalLauncher;

/** Communicator init and destroy with 1, 2, 3, 4 and 8 ranks, as threads and as JVMs. */
class HelloTest {
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void ranksAsThreads(int n) {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            List<Communicator> comms = Nccl.commInitAll(n);
            try {
                assertEquals(n, comms.size());
                for (int r = 0; r < n; r++) {
                    Communicator c = comms.get(r);
                    assertEquals(r, c.userRank());
                    assertEquals(n, c.count());
                    assertEquals(1, c.nodeCount());
                    assertEquals("Socket", c.netName());
                    assertEquals("host", c.device().backend());
                    assertEquals(r, c.device().index());
                }
            } finally {
                comms.forEach(Communicator::close);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void ranksAsJvms(int n) {
        LocalLauncher.Outcome out = Ranks.run(Ranks.launcher("hello"), n, n,
                Nccl.getUniqueId().toString(), Duration.ofSeconds(90));
        assertTrue(out.success(), Ranks.all(out));
        List<String> lines = Ranks.lines(out, "rank ");
        assertEquals(n, lines.size(), Ranks.all(out));
        for (int r = 0; r < n; r++) {
            assertTrue(lines.get(r).startsWith("rank " + r + " of " + n + ": nodes 1 "), lines.get(r));
            assertTrue(lines.get(r).contains(" net Socket device host:"), lines.get(r));
        }
    }
}
