package org.nccl4j.net.ext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.launch.LocalLauncher;

/**
 * Connection setup with a plugin whose non-blocking connect completes only after the peer called
 * accept, as libfabric-based plugins' does (the {@code fixture-ack} fixture). With every connect
 * finished before any accept starts, both ranks would wait for each other until the connect
 * timeout; connects and accepts must progress together.
 */
class AcceptGatedConnectTest {
    /** The rank program, a source file the java launcher compiles (see its comment). */
    private static final Path RANK_MAIN = Path.of("src", "test", "rank", "PluginRankMain.java").toAbsolutePath();

    @Test
    void twoRanksAllReduceThroughAPluginWhoseConnectWaitsForTheAccept() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // free now; rank 0's bootstrap root binds it
        }
        // Two processes, SHM off: every ring and tree connection goes through the plugin.
        LocalLauncher l = new LocalLauncher(RANK_MAIN.toString(), List.of()).echo(System.out, true)
                .env("NCCL_COMM_ID", "127.0.0.1:" + port).env("NCCL_SOCKET_IFNAME", "lo").env("NCCL_SHM_DISABLE", "1")
                .env("NCCL_NET_PLUGIN", Fixtures.library("fixture-ack")).env("NCCL_NET", "Fixture")
                .env("NCCL4J_CONNECT_TIMEOUT_MS", "15000").env("NCCL_DEBUG", "INFO").env("NCCL_DEBUG_SUBSYS", "INIT,NET");
        LocalLauncher.Outcome out = l.run(2, null, Duration.ofSeconds(120));
        String all = String.join("\n", out.output().get(0)) + "\n" + String.join("\n", out.output().get(1));
        assertTrue(out.success(), all);
        for (int r = 0; r < 2; r++) {
            assertTrue(out.output().get(r).contains("rank " + r + " of 2 net Fixture allReduce [3, 300, -1]"), all);
        }
        assertTrue(all.contains("Loaded net plugin Fixture (ncclNetPlugin_v8 in " + Fixtures.library("fixture-ack") + ")"), all);
        assertTrue(all.contains("[send] via NET/Fixture/0") && all.contains("[receive] via NET/Fixture/0"), all);
        assertEquals(2, out.output().size());
    }
}
