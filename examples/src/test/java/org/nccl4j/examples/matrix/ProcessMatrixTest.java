package org.nccl4j.examples.matrix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nccl4j.Nccl;
import org.nccl4j.core.launch.LocalLauncher;
import org.nccl4j.core.matrix.MatrixCases;
import org.nccl4j.core.netns.NetnsHosts;

/**
 * The correctness matrix with ranks as separate JVMs: over SHM (processes of one host), over the
 * NET transport between processes of one host ({@code NCCL_SHM_DISABLE=1}), and over the Socket
 * net across network-namespace hosts. The CI sample by default; {@code -Pmatrix} runs the whole
 * product.
 */
class ProcessMatrixTest {
    private static final Duration TIMEOUT = MatrixCases.full() ? Duration.ofMinutes(60) : Duration.ofSeconds(150);

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void shm(int nranks) {
        LocalLauncher l = RankJvms.launcher(RankJvms.matrixArgs(nranks == 2 ? 40 : 30)).env("NCCL_DEBUG", "INFO")
                .env("NCCL_DEBUG_SUBSYS", "INIT");
        LocalLauncher.Outcome out = RankJvms.run(l, nranks, nranks, Nccl.getUniqueId().toString(), TIMEOUT);
        assertMatrixPassed(out, nranks);
        assertVia(out, "direct shared memory");
    }

    @Test
    void netBetweenProcessesOfOneHost() {
        LocalLauncher l = RankJvms.launcher(RankJvms.matrixArgs(30)).env("NCCL_SHM_DISABLE", "1")
                .env("NCCL_DEBUG", "INFO").env("NCCL_DEBUG_SUBSYS", "INIT");
        LocalLauncher.Outcome out = RankJvms.run(l, 2, 2, Nccl.getUniqueId().toString(), TIMEOUT);
        assertMatrixPassed(out, 2);
        assertVia(out, "via NET/Socket");
    }

    @Test
    void netAcrossNetnsHosts() throws IOException {
        String why = NetnsHosts.unavailableReason();
        assumeTrue(why == null, why);
        try (NetnsHosts h = NetnsHosts.create(2)) {
            LocalLauncher l = RankJvms.launcher(RankJvms.matrixArgs(30)).env("NCCL_COMM_ID", h.address(0) + ":29521")
                    .env("NCCL_DEBUG", "INFO").env("NCCL_DEBUG_SUBSYS", "INIT").wrapper(h::wrap);
            LocalLauncher.Outcome out = RankJvms.run(l, 2, 2, null, TIMEOUT);
            assertMatrixPassed(out, 2);
            assertVia(out, "via NET/Socket");
            for (int r = 0; r < 2; r++) {
                assertTrue(RankJvms.lines(out, r, "INIT rank " + r + " of 2 nodes 2 ").size() == 1, RankJvms.all(out));
            }
        }
    }

    static void assertMatrixPassed(LocalLauncher.Outcome out, int nranks) {
        String all = RankJvms.all(out);
        assertFalse(out.timedOut(), "ranks timed out\n" + all);
        for (int r = 0; r < nranks; r++) {
            List<String> m = RankJvms.lines(out, r, "MATRIX rank " + r + " cases ");
            assertEquals(1, m.size(), "rank " + r + " printed no MATRIX line\n" + all);
            assertTrue(m.get(0).matches("MATRIX rank " + r + " cases [1-9][0-9]* wrong 0 .*"), m.get(0) + "\n" + all);
            assertEquals(0, out.exitCodes()[r], "rank " + r + " exit code\n" + all);
        }
    }

    /** Checks the connection log lines (NCCL_DEBUG=INFO) name the transport the test meant to exercise. */
    static void assertVia(LocalLauncher.Outcome out, String via) {
        String all = RankJvms.all(out);
        assertTrue(all.contains(via), "no connection \"" + via + "\" logged\n" + all);
    }
}
