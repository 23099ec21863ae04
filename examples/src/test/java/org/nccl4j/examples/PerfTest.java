package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nccl4j.Nccl;
import org.nccl4j.core.launch.LocalLauncher;
import org.nccl4j.core.netns.NetnsHosts;
import org.nccl4j.examples.matrix.ConnectionLines;
import org.nccl4j.examples.matrix.RankJvms;

/**
 * {@code nccl4j perf}: nccl-tests' output, every collective checked element by element, as threads,
 * as rank JVMs (with and without SHM), across network-namespace hosts and under mpirun.
 */
class PerfTest {
    /** Short sweeps: correctness and format are under test here, not speed. */
    private static final String[] QUICK = {"-n", "2", "-w", "1"};

    private static String[] args(String... a) {
        List<String> l = new ArrayList<>(List.of("perf"));
        l.addAll(List.of(a));
        l.addAll(List.of(QUICK));
        return l.toArray(String[]::new);
    }

    @Test
    void allReduceAsThreadsPrintsNcclTestsFormat() {
        Cli.Result r = Cli.run(args("--threads", "2", "--op", "allreduce", "-b", "8", "-e", "1M", "-f", "2"));
        assertEquals(0, r.exitCode(), r.text());
        List<String> lines = r.lines();
        assertEquals("# Collective test starting: all_reduce_perf", lines.get(0));
        assertEquals("# nThread 2 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 1 iters: 2 "
                + "agg iters: 1 validation: 1 graph: 0", lines.get(1));
        assertEquals("#", lines.get(2));
        assertEquals("# Using devices", lines.get(3));
        long pid = ProcessHandle.current().pid();
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(lines.get(4 + rank).matches(String.format(
                    "#  Rank %2d Group  0 Pid %6d on +\\S+ device %2d \\[.*\\] host", rank, pid, rank)), lines.get(4 + rank));
        }
        assertEquals("# algo: the tuning model's algorithm/protocol/channels per size (NCCL_ALGO, NCCL_PROTO restrict it)",
                lines.get(6));
        assertEquals("#", lines.get(7));
        // nccl-tests' column header, byte for byte (src/util.cu writeResultHeader), trailing blanks included.
        assertEquals("#                                                              out-of-place                       in-place          ",
                lines.get(8));
        assertEquals("#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong  algo",
                lines.get(9));
        assertEquals("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         ",
                lines.get(10));
        // First row: %12li  %12li  %8s  %6s  %6i, then twice "  %7s  %6s  %6s  %6g".
        assertTrue(lines.get(11).matches("           8             2     float     sum      -1"
                + "(  [ .0-9e+]{7}  [ .0-9e+]{6}  [ .0-9e+]{6}       0){2}  (Ring|Tree|RecDbl)/(LL|LL128|Simple)/[0-9]+"),
                lines.get(11));
        PerfTable t = PerfTable.parse(lines);
        t.assertCleanSweep(8, 1 << 20, 2);
        assertEquals(262144, t.rows().getLast().count());
        int n = lines.size();
        assertEquals("# Out of bounds values : 0 OK", lines.get(n - 4));
        assertTrue(lines.get(n - 3).matches("# Avg bus bandwidth    : [0-9.e+-]+ "), lines.get(n - 3));
        assertEquals("#", lines.get(n - 2));
        assertEquals("# Collective test concluded: all_reduce_perf", lines.get(n - 1));
    }

    @Test
    void allReduceAsRankJvms() {
        LocalLauncher.Outcome out = Ranks.run(Ranks.launcher(args("--op", "allreduce", "-b", "8", "-e", "1M", "-f", "2")),
                2, 2, Nccl.getUniqueId().toString(), Duration.ofSeconds(120));
        assertTrue(out.success(), Ranks.all(out));
        List<String> lines = out.output().get(0);
        assertTrue(lines.contains("# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 1 "
                + "iters: 2 agg iters: 1 validation: 1 graph: 0"), Ranks.all(out));
        assertEquals(2, lines.stream().filter(l -> l.startsWith("#  Rank ")).count(), Ranks.all(out));
        PerfTable.parse(lines).assertCleanSweep(8, 1 << 20, 2);
        assertTrue(out.output().get(1).stream().noneMatch(l -> l.startsWith("#")), "only rank 0 prints");
    }

    @ParameterizedTest
    @ValueSource(strings = {"allreduce", "broadcast", "reduce", "allgather", "reducescatter", "sendrecv", "alltoall"})
    void everyCollectiveChecksOut(String coll) {
        Cli.Result r = Cli.run(args("--threads", "3", "--op", coll, "-b", "12", "-e", "12K", "-f", "32", "-r", "1"));
        assertEquals(0, r.exitCode(), r.text());
        PerfTable t = PerfTable.parse(r.lines());
        t.assertCleanSweep(12, 12 << 10, 32);
        boolean rooted = coll.equals("broadcast") || coll.equals("reduce");
        boolean hasOp = !List.of("broadcast", "allgather", "alltoall").contains(coll);
        for (PerfTable.Row row : t.rows()) {
            assertEquals(rooted ? 1 : -1, row.root(), r.text());
            assertEquals(hasOp ? "sum" : "none", row.redop(), r.text());
            boolean p2p = coll.equals("sendrecv") || coll.equals("alltoall");
            assertEquals(p2p ? "N/A" : "0", row.wrongInPlace(), r.text()); // nccl-tests: no in-place p2p check
        }
        // AllGather, ReduceScatter, AlltoAll: count per rank, size the total over ranks.
        PerfTable.Row last = t.rows().getLast();
        assertEquals(12 * 1024, last.size(), r.text());
        boolean perRank = List.of("allgather", "reducescatter", "alltoall").contains(coll);
        assertEquals(perRank ? 1024 : 3072, last.count(), r.text());
    }

    @ParameterizedTest
    @ValueSource(strings = {"allreduce", "reducescatter", "reduce"})
    void everyTypeAndReductionIsExact(String coll) {
        Cli.Result r = Cli.run(args("--threads", "3", "--op", coll, "-b", "24", "-e", "3K", "-f", "128", "-d", "all",
                "-o", "all"));
        assertEquals(0, r.exitCode(), r.text());
        PerfTable t = PerfTable.parse(r.lines());
        t.assertNoWrong();
        // Every type with every reduction at both sizes, once each.
        List<String> expected = new ArrayList<>();
        for (String type : List.of("int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double",
                "bfloat16")) {
            for (String op : List.of("sum", "prod", "max", "min", "avg")) {
                for (long size : new long[] {24, 3072}) {
                    expected.add(type + " " + op + " " + size);
                }
            }
        }
        List<String> seen = t.rows().stream().map(x -> x.type() + " " + x.redop() + " " + x.size()).sorted().toList();
        assertEquals(expected.stream().sorted().toList(), seen, r.text());
    }

    @Test
    void noCheckPrintsNotApplicable() {
        Cli.Result r = Cli.run(args("--threads", "2", "-b", "1K", "-e", "1K", "-c", "0", "-z", "1", "-a", "3", "-d", "bfloat16"));
        assertEquals(0, r.exitCode(), r.text());
        assertTrue(r.lines().contains("# Blocking Enabled: wait for completion and barrier after each collective "), r.text());
        PerfTable t = PerfTable.parse(r.lines());
        assertEquals(1, t.rows().size(), r.text());
        assertEquals("N/A", t.rows().getFirst().wrongOutPlace());
        assertEquals("bfloat16", t.rows().getFirst().type());
        assertTrue(r.lines().contains("# Out of bounds values : 0 OK"), r.text());
    }

    @ParameterizedTest
    @ValueSource(strings = {"allreduce", "reducescatter"})
    void blockingCallsBackToBackCheckOut(String coll) {
        // AllReduce through the blocking form (run by the calling thread), the others enqueued and awaited.
        Cli.Result r = Cli.run(args("--threads", "2", "--op", coll, "-b", "8", "-e", "64K", "-f", "8", "-z", "2",
                "-d", "all", "-o", "avg"));
        assertEquals(0, r.exitCode(), r.text());
        assertTrue(r.lines().contains("# Blocking calls: each returns when its collective is done, back to back, no barrier"),
                r.text());
        PerfTable.parse(r.lines()).assertNoWrong();
    }

    @Test
    void callsAfterAComputeStepCheckOut() {
        // 2 placements x 15 timed calls, each after 100 ms of compute on every rank: the run
        // cannot be shorter than 3 s, longer than the rest of it takes (a lower bound, not a speed).
        long t0 = System.nanoTime();
        Cli.Result r = Cli.run("perf", "--threads", "2", "--op", "allreduce", "-b", "16K", "-e", "16K", "-z", "2",
                "--compute-us", "100000", "-n", "15", "-w", "1");
        long elapsedMs = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(0, r.exitCode(), r.text());
        assertTrue(r.lines().contains("# Blocking calls, each after a compute step of 100000 us on every rank: time is "
                + "the median over calls of the call's least time over ranks"), r.text());
        PerfTable t = PerfTable.parse(r.lines());
        assertEquals(1, t.rows().size(), r.text());
        t.assertNoWrong();
        assertTrue(elapsedMs >= 2 * 15 * 100, elapsedMs + " ms");
    }

    @Test
    void badArgumentsAreRefused() {
        Cli.Result r = Cli.run("perf", "--threads", "1", "-d", "complex");
        assertEquals(2, r.exitCode(), r.text());
        assertTrue(r.stderr().contains("unknown data type 'complex'"), r.text());
        r = Cli.run("perf", "--threads", "1", "-b", "1M", "-e", "1K");
        assertEquals(2, r.exitCode(), r.text());
        assertTrue(r.stderr().contains("invalid sizes for 'minbytes' and 'maxbytes'"), r.text());
        r = Cli.run("perf", "--threads", "1", "-z", "3");
        assertEquals(2, r.exitCode(), r.text());
        assertTrue(r.stderr().contains("-z 3: 0, 1 or 2"), r.text());
        r = Cli.run("perf", "--threads", "1", "-R", "2");
        assertEquals(2, r.exitCode(), r.text());
        assertTrue(r.stderr().contains("-R 2: 0 or 1"), r.text());
        r = Cli.run("perf", "--threads", "1", "--compute-us", "10");
        assertEquals(2, r.exitCode(), r.text());
        assertTrue(r.stderr().contains("--compute-us 10: at least 0, and it times blocking calls: add -z 2"), r.text());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "1"})
    void shmCarriesItUnlessDisabledThenTheNetworkDoes(String shmDisable) {
        LocalLauncher l = Ranks.launcher(args("-b", "8", "-e", "64K", "-f", "8")).env("NCCL_SHM_DISABLE", shmDisable)
                .env("NCCL_DEBUG", "INFO").env("NCCL_DEBUG_SUBSYS", "INIT,TUNING");
        LocalLauncher.Outcome out = Ranks.run(l, 2, 2, Nccl.getUniqueId().toString(), Duration.ofSeconds(120));
        assertTrue(out.success(), Ranks.all(out));
        PerfTable table = PerfTable.parse(out.output().get(0));
        table.assertCleanSweep(8, 64 << 10, 8);
        ConnectionLines.assertEveryConnectionVia(out, shmDisable.equals("1") ? "NET/Socket/" : "direct shared memory");
        // The tuning table, as NCCL prints it: by rank 0, where TUNING is logged (it is built only then).
        for (int r = 0; r < 2; r++) {
            for (String head : List.of("Latency/AlgBw |", " Max NThreads |", "    AllReduce |")) {
                assertEquals(r == 0, out.output().get(r).stream().anyMatch(x -> x.contains(head)),
                        "rank " + r + ", " + head + ":\n" + Ranks.all(out));
            }
        }
        // A pair over the net is rated as across nodes: recursive doubling with Simple for a few KiB.
        assertEquals(shmDisable.equals("1"), table.rows().stream().anyMatch(r -> r.algo().startsWith("RecDbl/Simple/")),
                "recursive doubling with Simple where the pair goes through the net, else never:\n" + Ranks.all(out));
    }

    /**
     * {@code -R 1} (the default) gives the rank JVMs buffers from {@code Nccl.memAlloc}, which
     * their peers map to read in place (one SHM line per mapping); {@code -R 0} ordinary memory,
     * copied through the slots: both check out.
     */
    @ParameterizedTest
    @ValueSource(strings = {"1", "0"})
    void memAllocBuffersAreReadInPlaceAndOrdinaryOnesCopied(String register) {
        LocalLauncher l = Ranks.launcher(args("--op", "allreduce", "-b", "64K", "-e", "1M", "-f", "4", "-R", register))
                .env("NCCL_ALGO", "Ring").env("NCCL_PROTO", "Simple").env("NCCL_DEBUG", "INFO")
                .env("NCCL_DEBUG_SUBSYS", "SHM");
        LocalLauncher.Outcome out = Ranks.run(l, 2, 2, Nccl.getUniqueId().toString(), Duration.ofSeconds(120));
        assertTrue(out.success(), Ranks.all(out));
        PerfTable.parse(out.output().get(0)).assertCleanSweep(64 << 10, 1 << 20, 4);
        for (int r = 0; r < 2; r++) {
            String peer = "mapped rank " + (1 - r) + "'s memory ";
            assertEquals(register.equals("1"), out.output().get(r).stream().anyMatch(x -> x.contains(peer)),
                    "rank " + r + " reads rank " + (1 - r) + "'s buffers in place:\n" + Ranks.all(out));
        }
    }

    /**
     * The Socket net as it runs by default from 16 cores (2 x 2 data sockets): messages of 128 KiB
     * and more are cut into pieces over the data connections and put together again.
     */
    @Test
    void theNetworkWithDataSocketsAsFromSixteenCores() {
        LocalLauncher l = Ranks.launcher(args("-b", "8", "-e", "2M", "-f", "8")).env("NCCL_SHM_DISABLE", "1")
                .env("NCCL_SOCKET_NTHREADS", "2").env("NCCL_NSOCKS_PERTHREAD", "2")
                .env("NCCL_DEBUG", "INFO").env("NCCL_DEBUG_SUBSYS", "INIT,NET");
        LocalLauncher.Outcome out = Ranks.run(l, 2, 2, Nccl.getUniqueId().toString(), Duration.ofSeconds(120));
        assertTrue(out.success(), Ranks.all(out));
        PerfTable.parse(out.output().get(0)).assertCleanSweep(8, 2 << 20, 8);
        ConnectionLines.assertEveryConnectionVia(out, "NET/Socket/");
        for (int r = 0; r < 2; r++) {
            assertTrue(out.output().get(r).stream().anyMatch(x -> x.contains("NET/Socket: Using 2 threads and 2 sockets per thread")),
                    Ranks.all(out));
        }
    }

    @Test
    void acrossTwoNetnsHosts() throws IOException {
        String why = NetnsHosts.unavailableReason();
        assumeTrue(why == null, why);
        try (NetnsHosts h = NetnsHosts.create(2)) {
            LocalLauncher l = Ranks.launcher(args("-b", "8", "-e", "64K", "-f", "8"))
                    .env("NCCL_COMM_ID", h.address(0) + ":29611")
                    .env("NCCL_SOCKET_IFNAME", "eth0")
                    .wrapper(h::wrap);
            LocalLauncher.Outcome out = Ranks.run(l, 2, 2, null, Duration.ofSeconds(120));
            assertTrue(out.success(), Ranks.all(out));
            List<String> lines = out.output().get(0);
            for (int r = 0; r < 2; r++) {
                String host = h.hostname(r);
                int rank = r;
                assertTrue(lines.stream().anyMatch(x -> x.startsWith(String.format("#  Rank %2d ", rank))
                        && x.contains(" on " + host + " ")), Ranks.all(out));
            }
            PerfTable.parse(lines).assertCleanSweep(8, 64 << 10, 8);
        }
    }

    @Test
    void underOpenMpi() throws Exception {
        assumeTrue(RankJvms.onPath("mpirun"), "mpirun is not installed (Debian: openmpi-bin; scripts/test installs it)");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> cmd = new ArrayList<>(List.of("mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2",
                "-x", "NCCL_COMM_ID=127.0.0.1:" + port, "-x", "NCCL4J_INIT_TIMEOUT_MS=60000",
                ProcessHandle.current().info().command().orElseThrow(), "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args("--op", "allgather", "-b", "8", "-e", "8K", "-f", "32")));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        pb.environment().put("OMPI_MCA_btl_vader_single_copy_mechanism", "none");
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            for (ProcessHandle h : p.descendants().toList()) { // thread dumps of the rank JVMs, then kill
                if (h.info().command().map(c -> c.endsWith("java")).orElse(false)) {
                    new ProcessBuilder("kill", "-QUIT", Long.toString(h.pid())).start().waitFor(2, TimeUnit.SECONDS);
                }
            }
            Thread.sleep(1500);
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("mpirun did not finish in 120 s: "
                    + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        System.out.println(out);
        assertEquals(0, p.exitValue(), out);
        List<String> lines = out.lines().toList();
        assertTrue(lines.contains("# Collective test starting: all_gather_perf"), out);
        assertEquals(2, lines.stream().filter(l -> l.startsWith("#  Rank ")).count(), out);
        PerfTable.parse(lines).assertCleanSweep(8, 8 << 10, 32);
    }

}
