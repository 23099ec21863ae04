package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code nccl4j perf --device cuda|hip} on this machine's GPU, for each GPU backend a subclass: every test but AlltoAll (refused on device memory: its in-place half overlaps),
 * on 1 and 2 ranks (threads, sharing the GPU when there is one; rank JVMs: {@code RankJvmsGpuTest}), over sizes from 8 bytes to 8 MiB,
 * every row checked element by element ({@code #wrong} 0) in and out of place; every type and
 * reduction of AllReduce and ReduceScatter on 2 ranks. The device lines name the backend.
 */
@Tag("gpu")
abstract class PerfGpuSuite {
    private static final String[] COLLS = {"allreduce", "broadcast", "reduce", "allgather", "reducescatter", "sendrecv"};

    private final GpuHere gpu;

    PerfGpuSuite(GpuHere gpu) {
        this.gpu = gpu;
    }

    @BeforeEach
    void needsGpu() {
        gpu.requireOrSkip();
    }

    private Cli.Result perf(String... a) {
        return perf(gpu, a);
    }

    /** {@code nccl4j perf --device <backend> -n 2 -w 1} and {@code a}. */
    static Cli.Result perf(GpuHere gpu, String... a) {
        List<String> l = new ArrayList<>(List.of("perf", "--device", gpu.backend(), "-n", "2", "-w", "1"));
        l.addAll(List.of(a));
        return Cli.run(l.toArray(String[]::new));
    }

    @Test
    void everyCollectiveChecksOutOnOneAndTwoRanks() {
        for (int n : new int[] {1, 2}) {
            for (String coll : COLLS) {
                Cli.Result r = perf("--threads", Integer.toString(n), "--op", coll, "-b", "8", "-e", "8M", "-f", "32");
                assertEquals(0, r.exitCode(), coll + " on " + n + " ranks: " + r.text());
                PerfTable.parse(r.lines()).assertCleanSweep(8, 8 << 20, 32);
                long deviceLines = r.lines().stream().filter(l -> l.matches("#  Rank +\\d+ Group  0 Pid +\\d+ on +\\S+ "
                        + "device +\\d+ \\[[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]\\] " + gpu.backend())).count();
                assertEquals(n, deviceLines, r.text());
            }
        }
    }

    @Test
    void everyTypeAndReductionIsExactOnTwoRanks() {
        for (String coll : new String[] {"allreduce", "reducescatter"}) {
            Cli.Result r = perf("--threads", "2", "--op", coll, "-d", "all", "-o", "all", "-b", "8", "-e", "64K", "-f", "64");
            assertEquals(0, r.exitCode(), r.text());
            PerfTable t = PerfTable.parse(r.lines());
            t.assertNoWrong();
            assertEquals(10 * 5 * 3, t.rows().size(), r.text()); // types x reductions x sizes 8, 512, 32K
        }
    }

    @Test
    void threadsSayWhenTheyShareAGpu() {
        Cli.Result r = perf("--threads", "4", "--op", "allreduce", "-b", "1K", "-e", "1M", "-f", "32");
        assertEquals(0, r.exitCode(), r.text());
        PerfTable.parse(r.lines()).assertCleanSweep(1024, 1 << 20, 32);
        assertTrue(r.lines().contains("# nThread 4 nGpus 1 minBytes 1024 maxBytes 1048576 step: 32(factor) warmup iters: 1 "
                + "iters: 2 agg iters: 1 validation: 1 graph: 0"), r.text());
        long pid = ProcessHandle.current().pid();
        assertEquals(4, r.lines().stream().filter(l -> l.matches("#  Rank +\\d+ Group  0 Pid +" + pid + " .* " + gpu.backend()))
                        .count(),
                r.text());
        // One GPU here (the H200 machine): the four ranks share it, and perf says so before its table.
        boolean shared = r.lines().stream().anyMatch(l -> l.matches("# 4 ranks on \\d+ GPUs?: NCCL4J_SHARED_DEVICE=1, .*"));
        long onGpu0 = r.lines().stream().filter(l -> l.matches("#  Rank .* device +0 .*")).count();
        assertTrue(shared || onGpu0 == 1, "ranks on GPU 0: " + onGpu0 + ", shared line: " + shared + "\n" + r.text());
    }
}
