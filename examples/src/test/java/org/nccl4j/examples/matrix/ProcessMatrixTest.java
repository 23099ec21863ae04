package org.nccl4j.examples.matrix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
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
        ConnectionLines.assertEveryConnectionVia(out, "direct shared memory");
    }

    @Test
    void netBetweenProcessesOfOneHost() {
        LocalLauncher l = RankJvms.launcher(RankJvms.matrixArgs(30)).env("NCCL_SHM_DISABLE", "1")
                .env("NCCL_DEBUG", "INFO").env("NCCL_DEBUG_SUBSYS", "INIT");
        LocalLauncher.Outcome out = RankJvms.run(l, 2, 2, Nccl.getUniqueId().toString(), TIMEOUT);
        assertMatrixPassed(out, 2);
        ConnectionLines.assertEveryConnectionVia(out, "NET/Socket/");
    }

    /** Every algorithm and protocol forced ({@code NCCL_ALGO}, {@code NCCL_PROTO}) over SHM and over NET. */
    static Stream<Arguments> protocols() {
        List<Arguments> a = new ArrayList<>();
        for (String transport : List.of("SHM", "NET")) {
            for (String algo : List.of("Ring", "Tree")) {
                for (String proto : List.of("LL", "LL128", "Simple")) {
                    a.add(Arguments.of(transport, algo, proto));
                }
            }
        }
        return a.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("protocols")
    void algorithmAndProtocol(String transport, String algo, String proto) {
        boolean shm = transport.equals("SHM");
        int nranks = 2; // three ranks (a tree's middle node) run in ProtocolMatrixTest
        // Tree runs AllReduce only: its sample is AllReduce cases.
        String[] args = RankJvms.matrixArgs(algo.equals("Tree") ? 4 : 6);
        if (algo.equals("Tree")) {
            args = Stream.concat(Stream.of(args), Stream.of("only=allreduce")).toArray(String[]::new);
        }
        LocalLauncher l = RankJvms.launcher(args).env("NCCL_ALGO", algo).env("NCCL_PROTO", proto)
                .env("NCCL_DEBUG", "INFO").env("NCCL_DEBUG_SUBSYS", "INIT");
        if (!shm) {
            l = l.env("NCCL_SHM_DISABLE", "1");
        }
        LocalLauncher.Outcome out = RankJvms.run(l, nranks, nranks, Nccl.getUniqueId().toString(), TIMEOUT);
        assertMatrixPassed(out, nranks);
        ConnectionLines.assertEveryConnectionVia(out, shm ? "direct shared memory" : "NET/Socket/");
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
            ConnectionLines.assertEveryConnectionVia(out, "NET/Socket/");
            for (int r = 0; r < 2; r++) {
                assertTrue(RankJvms.lines(out, r, "INIT rank " + r + " of 2 nodes 2 ").size() == 1, RankJvms.all(out));
            }
        }
    }

    /**
     * Tree AllReduce across 4 network-namespace hosts: NCCL's double binary tree gives rank 2 two
     * children (1 and 3) in tree 0, so every protocol's multi-peer reduce and broadcast run.
     */
    @ParameterizedTest(name = "Tree {0} across 4 hosts")
    @ValueSource(strings = {"LL", "LL128", "Simple"})
    void treeAcrossFourNetnsHosts(String proto) throws IOException {
        String why = NetnsHosts.unavailableReason();
        assumeTrue(why == null, why);
        try (NetnsHosts h = NetnsHosts.create(4)) {
            String[] args = Stream.concat(Stream.of(RankJvms.matrixArgs(3)), Stream.of("only=allreduce"))
                    .toArray(String[]::new);
            LocalLauncher l = RankJvms.launcher(args).env("NCCL_COMM_ID", h.address(0) + ":29522")
                    .env("NCCL_ALGO", "Tree").env("NCCL_PROTO", proto)
                    .env("NCCL_DEBUG", "INFO").env("NCCL_DEBUG_SUBSYS", "INIT").wrapper(h::wrap);
            LocalLauncher.Outcome out = RankJvms.run(l, 4, 4, null, TIMEOUT);
            assertMatrixPassed(out, 4);
            assertTrue(RankJvms.lines(out, 2, "").stream().anyMatch(x -> x.contains("Trees [0] 1/3/-1->2->0")),
                    RankJvms.all(out));
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
}
