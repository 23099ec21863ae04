package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.launch.LocalLauncher;
import org.nccl4j.core.netns.NetnsHosts;
import org.nccl4j.examples.matrix.ConnectionLines;

/**
 * Native net plugins end to end: nccl-net-ext's fixture plugin (our own C plugin over TCP,
 * built by gcc in that module's test phase) carries {@code perf} and {@code train} between two
 * network-namespace hosts, and {@code doctor} says what it loaded or why not.
 */
class NativePluginTest {
    private static final Path FIXTURES = Path.of("..", "nccl-net-ext", "target", "test-native").toAbsolutePath().normalize();
    private static final Duration TIMEOUT = Duration.ofSeconds(180);

    private static String fixture(String lib) {
        Path p = FIXTURES.resolve(lib);
        assertTrue(Files.isRegularFile(p), p + " is missing: nccl-net-ext's test phase builds it (mvn verify builds it first)");
        return p.toString();
    }

    @Test
    void perfAcrossTwoNetnsHostsThroughTheFixturePlugin() throws IOException {
        String why = NetnsHosts.unavailableReason();
        assumeTrue(why == null, why);
        try (NetnsHosts h = NetnsHosts.create(2)) {
            LocalLauncher l = Ranks.launcher("perf", "-b", "8", "-e", "4M", "-f", "8", "-n", "5", "-w", "1")
                    .env("NCCL_COMM_ID", h.address(0) + ":29631").env("NCCL_NET_PLUGIN", fixture("libnccl-net-fixture.so"))
                    .env("NCCL_NET", "Fixture").env("NCCL_DEBUG", "INFO").env("NCCL_DEBUG_SUBSYS", "INIT,NET")
                    .wrapper(h::wrap);
            LocalLauncher.Outcome out = Ranks.run(l, 2, 2, null, TIMEOUT);
            assertTrue(out.success(), Ranks.all(out));
            PerfTable.parse(out.output().get(0)).assertCleanSweep(8, 4 << 20, 8);
            ConnectionLines.assertEveryConnectionVia(out, "NET/Fixture/0");
            String all = Ranks.all(out);
            assertTrue(all.contains("NET/Fixture : Using"), "the plugin's own log lines reach nccl4j's log: " + all);
        }
    }

    @Test
    void trainAcrossTwoNetnsHostsThroughTheV8Fixture() throws IOException {
        String why = NetnsHosts.unavailableReason();
        assumeTrue(why == null, why);
        try (NetnsHosts h = NetnsHosts.create(2)) {
            LocalLauncher l = Ranks.launcher("train", "--epochs", "2")
                    .env("NCCL_COMM_ID", h.address(0) + ":29632").env("NCCL_NET_PLUGIN", fixture("libnccl-net-fixture-v8.so"))
                    .env("NCCL_NET", "Fixture").wrapper(h::wrap);
            LocalLauncher.Outcome out = Ranks.run(l, 2, 2, null, TIMEOUT);
            assertTrue(out.success(), Ranks.all(out));
            TrainTest.sameDigestOnEveryRank(out);
        }
    }

    @Test
    void doctorShowsThePluginSearch() {
        List<String> ok = doctor(fixture("libnccl-net-fixture.so"));
        assertTrue(ok.stream().anyMatch(x -> x.startsWith("  Fixture    priority  100  chosen")), String.join("\n", ok));
        assertTrue(ok.stream().anyMatch(x -> x.contains("ncclNetPlugin symbols: v10 v8 v4, using v10")), String.join("\n", ok));

        List<String> missing = doctor("nccl4j-no-such-plugin");
        assertTrue(missing.stream().anyMatch(x -> x.contains("libnccl-net-nccl4j-no-such-plugin.so: cannot open shared object file")),
                String.join("\n", missing));
        assertTrue(missing.stream().anyMatch(x -> x.startsWith("  Socket     priority  300  chosen")), String.join("\n", missing));

        List<String> signals = doctor(fixture("libnccl-net-sigsegv.so"));
        assertTrue(signals.stream().anyMatch(x -> x.contains("replaced the JVM's SIGSEGV handler")
                && x.contains("IPATH_NO_BACKTRACE=1") && x.contains("libjsig.so")), String.join("\n", signals));
        assertTrue(signals.stream().anyMatch(x -> x.startsWith("  Socket     priority  300  chosen")), String.join("\n", signals));
    }

    /** {@code nccl4j doctor} in its own JVM (the plugin is loaded once per process) with {@code NCCL_NET_PLUGIN}. */
    private static List<String> doctor(String plugin) {
        LocalLauncher l = Ranks.launcher("doctor").env("NCCL_NET_PLUGIN", plugin).env("NCCL4J_FIXTURE_SIGSEGV_FATAL", "1");
        LocalLauncher.Outcome out = Ranks.run(l, 1, 1, null, TIMEOUT);
        assertTrue(out.success(), Ranks.all(out));
        return out.output().get(0);
    }
}
