package org.nccl4j.core.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nccl4j.Nccl;
import org.nccl4j.core.launch.LocalLauncher;

/**
 * Ring collectives on Simple between rank JVMs over SHM, with buffers from {@code Nccl.memAlloc}
 * that the receivers read in place: exact results on three ranks with 8 KiB steps (many steps and
 * grid loops), AllReduce and then the others, and the mapping of the sender's memory seen in each
 * receiver's {@code /proc/self/maps}; with one rank's buffers from an ordinary arena the others
 * still sum right and only that rank's successor maps nothing.
 */
class InPlaceCollectivesTest {
    private static LocalLauncher.Outcome run(String plainRank) throws IOException {
        LocalLauncher l = new LocalLauncher(InPlaceRankMain.class.getName(), List.of()).echo(null, false)
                .jvmOptions("-XX:TieredStopAtLevel=1").env("NCCL_ALGO", "Ring").env("NCCL_PROTO", "Simple")
                .env("NCCL_BUFFSIZE", "65536");
        if (plainRank != null) {
            l.env("IN_PLACE_PLAIN", plainRank);
        }
        return l.run(3, Nccl.getUniqueId().toString(), Duration.ofSeconds(150));
    }

    private static List<Long> mappings(LocalLauncher.Outcome out) {
        List<Long> m = new ArrayList<>();
        for (List<String> lines : out.output()) {
            assertTrue(lines.contains("OK"), "a rank did not finish: " + out.output());
            m.add(lines.stream().filter(x -> x.startsWith("PEER_MAPPINGS ")).map(x -> Long.parseLong(x.substring(14)))
                    .findFirst().orElseThrow());
        }
        return m;
    }

    @Test
    void receiversReadTheirSendersMemoryInPlaceAndSumExactly() throws IOException {
        LocalLauncher.Outcome out = run(null);
        assertTrue(out.success(), "ranks failed: " + out.output());
        for (long m : mappings(out)) {
            // Its predecessor's input and output.
            assertEquals(2, m, "peer allocations mapped: " + out.output());
        }
    }

    @Test
    void aRankWithOrdinaryBuffersIsCopiedThroughTheSlotsAndTheSumsStayExact() throws IOException {
        LocalLauncher.Outcome out = run("1");
        assertTrue(out.success(), "ranks failed: " + out.output());
        List<Long> m = mappings(out);
        assertEquals(1, m.stream().filter(x -> x == 0).count(), "only rank 1's successor maps nothing: " + m);
        assertEquals(2, m.stream().filter(x -> x == 2).count(), m.toString());
    }
}
