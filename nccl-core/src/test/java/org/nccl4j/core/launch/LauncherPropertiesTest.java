package org.nccl4j.core.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;

/** A {@code -D} setting of a parameter on the launching JVM reaches every rank JVM; other properties do not. */
class LauncherPropertiesTest {
    /** A rank: prints how it sees NCCL_ALGO and an unrelated property. */
    public static void main(String[] args) {
        Config c = Config.global();
        System.out.println("algo " + c.string(Params.ALGO) + " from " + c.setting(Params.ALGO).source()
                + ", other " + System.getProperty("nccl4j.test.unrelated"));
    }

    @Test
    void parameterPropertiesReachTheRanks() throws Exception {
        System.setProperty("nccl.algo", "Tree");
        System.setProperty("nccl4j.test.unrelated", "x");
        try {
            LocalLauncher.Outcome out = new LocalLauncher(LauncherPropertiesTest.class.getName(), List.of())
                    .echo(System.out, false).run(2, null, Duration.ofSeconds(60));
            assertTrue(out.success(), out.output().toString());
            for (List<String> rank : out.output()) {
                assertEquals(List.of("algo Tree from SYSTEM_PROPERTY, other null"),
                        rank.stream().filter(l -> l.startsWith("algo ")).toList(), rank.toString());
            }
        } finally {
            System.clearProperty("nccl.algo");
            System.clearProperty("nccl4j.test.unrelated");
        }
    }
}
