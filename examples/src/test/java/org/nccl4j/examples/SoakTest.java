package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.nccl4j.Nccl;
import org.nccl4j.core.launch.LocalLauncher;

/** {@code nccl4j soak} on 4 rank JVMs for a few seconds: communicators made, used, destroyed, alike on every rank. */
class SoakTest {
    private static final Pattern DONE = Pattern.compile(
            "soak rank (\\d): done, (\\d+) communicators, (\\d+) collectives, every result exact");

    @Test
    void everyRankMakesTheSameCommunicatorsAndGetsExactResults() {
        LocalLauncher.Outcome out = Ranks.run(Ranks.launcher("soak", "--duration", "PT4S", "--ops", "10"), 4, 4,
                Nccl.getUniqueId().toString(), Duration.ofSeconds(120));
        assertTrue(out.success(), Ranks.all(out));
        List<String> done = Ranks.lines(out, "soak rank ").stream().filter(l -> l.contains("done")).toList();
        assertEquals(4, done.size(), Ranks.all(out));
        long comms = -1;
        for (int r = 0; r < 4; r++) {
            Matcher m = DONE.matcher(done.get(r));
            assertTrue(m.matches(), done.get(r));
            assertEquals(r, Integer.parseInt(m.group(1)));
            // Each split is a collective of all ranks: they made exactly as many, 10 collectives in each.
            long c = Long.parseLong(m.group(2));
            assertTrue(c >= 2, done.get(r));
            assertEquals(c * 10, Long.parseLong(m.group(3)), done.get(r));
            assertTrue(comms == -1 || comms == c, Ranks.all(out));
            comms = c;
        }
    }
}
