package org.nccl4j.examples.matrix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.nccl4j.core.launch.LocalLauncher;

/**
 * The connection lines ranks log under {@code NCCL_DEBUG=INFO} (subsystem INIT), read back:
 * {@code Channel 00 : 0[1000] -> 1[2000] [send] via NET/Socket/0}.
 */
public final class ConnectionLines {
    private static final Pattern LINE =
            Pattern.compile("Channel \\d{2} : \\d+\\[[0-9a-f]+\\] -> \\d+\\[[0-9a-f]+\\] (?:\\[(?:send|receive)\\] )?via (.+)$");

    private ConnectionLines() {
    }

    /**
     * Asserts that every rank logged connections and that every one of them went the expected
     * way (one stray connection over another transport fails).
     *
     * @param out the ranks' outcome
     * @param via the start of the {@code via} part, e.g. {@code NET/Socket/} or {@code direct shared memory}
     */
    public static void assertEveryConnectionVia(LocalLauncher.Outcome out, String via) {
        String all = RankJvms.all(out);
        for (int r = 0; r < out.output().size(); r++) {
            List<String> ways = new ArrayList<>();
            for (String l : out.output().get(r)) {
                Matcher m = LINE.matcher(l);
                if (m.find()) {
                    ways.add(m.group(1));
                }
            }
            assertTrue(!ways.isEmpty(), "rank " + r + " logged no connection (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT)\n" + all);
            List<String> other = ways.stream().filter(w -> !w.startsWith(via)).toList();
            assertEquals(List.of(), other, "rank " + r + " connections not via " + via + "\n" + all);
        }
    }
}
