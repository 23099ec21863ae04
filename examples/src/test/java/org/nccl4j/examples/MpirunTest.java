package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.nccl4j.examples.matrix.RankJvms;

/** {@code mpirun -np 3 nccl4j hello}: ranks from Open MPI's variables, root from NCCL_COMM_ID. */
class MpirunTest {
    @Test
    void helloUnderOpenMpi() throws Exception {
        assumeTrue(RankJvms.onPath("mpirun"), "mpirun is not installed (Debian: openmpi-bin; scripts/test installs it)");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> cmd = new ArrayList<>(List.of("mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "3",
                "-x", "NCCL_COMM_ID=127.0.0.1:" + port, "-x", "NCCL4J_INIT_TIMEOUT_MS=60000",
                ProcessHandle.current().info().command().orElseThrow(), "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "hello"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        pb.environment().put("OMPI_MCA_btl_vader_single_copy_mechanism", "none");
        Process p = pb.start();
        byte[] bytes;
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            // Thread dumps of the rank JVMs (SIGQUIT), then kill everything.
            for (ProcessHandle h : p.descendants().toList()) {
                if (h.info().command().map(c -> c.endsWith("java")).orElse(false)) {
                    new ProcessBuilder("kill", "-QUIT", Long.toString(h.pid())).start().waitFor(2, TimeUnit.SECONDS);
                }
            }
            Thread.sleep(1500);
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("mpirun did not finish in 120 s: " + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        bytes = p.getInputStream().readAllBytes();
        String out = new String(bytes, StandardCharsets.UTF_8);
        System.out.println(out);
        assertEquals(0, p.exitValue(), out);
        List<String> hello = out.lines().filter(l -> l.matches("rank \\d+ of \\d+: .*")).sorted().toList();
        assertEquals(3, hello.size(), out);
        for (int r = 0; r < 3; r++) { // each rank once, numbered by Open MPI, all on this node, over Socket
            assertTrue(hello.get(r).matches("rank " + r + " of 3: nodes 1 host \\S+ net Socket device host:\\d+ .*"),
                    hello.get(r) + "\n" + out);
        }
    }
}
