package org.nccl4j.core.topo.tuning;

import org.nccl4j.core.debug.CFormat;
import org.nccl4j.core.topo.system.Cpu;
import org.nccl4j.core.conn.BuffSizes;
import org.nccl4j.core.proto.Protocol;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.topo.search.TopoGraph;

/** Readable checks of the model and the per-call choice on two DGX-A100 nodes (golden {@code dgxa100_n2}). */
class TuningModelTest {
    private static final int NVL = 1;
    private static final int PIX = 3;

    private static Config config(String... kv) {
        Map<String, String> env = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            env.put(kv[i], kv[i + 1]);
        }
        return Config.of(new Properties(), env, Path.of("/nonexistent/nccl.conf"));
    }

    private static TopoGraph graph(int id, int pattern, int nChannels, float intra, float inter, int typeIntra,
                                   int typeInter) {
        TopoGraph g = new TopoGraph();
        g.id = id;
        g.pattern = pattern;
        g.nChannels = nChannels;
        g.speedIntra = intra;
        g.speedInter = inter;
        g.typeIntra = typeIntra;
        g.typeInter = typeInter;
        return g;
    }

    /** 2 nodes x 8 A100, AMD CPUs: ring 8 x 24, tree 8 x 30/24, no CollNet channels. */
    private static TuningModel dgxa100x2(int collNetSupport, int collNetChannels, Config config) {
        TopoGraph ring = graph(0, TopoGraph.PATTERN_RING, 8, 24, 24, NVL, PIX);
        TopoGraph tree = graph(1, TopoGraph.PATTERN_BALANCED_TREE, 8, 30, 24, NVL, PIX);
        TopoGraph collNet = graph(2, TopoGraph.PATTERN_TREE, collNetChannels, 24, 24, NVL, PIX);
        TuningContext ctx = new TuningContext(0, 16, 2, 16, collNetSupport, collNetChannels, 80, 80,
                new CpuType(Cpu.ARCH_X86, Cpu.VENDOR_AMD, 0));
        return TuningModel.compute(ctx, tree, ring, collNet, TuningProfile.NCCL_GPU, config);
    }

    @Test
    void ringAllReduceFollowsTheFormulas() {
        TuningModel m = dgxa100x2(0, 0, config());
        // 8.4 base + 28 intra steps x 3.4 + 2 inter steps x 9.6.
        assertEquals("122.8000", CFormat.fixed(m.latency(CollFunc.ALL_REDUCE, Algorithm.RING, Protocol.SIMPLE), 4));
        // 8 channels x 24 GB/s x nRanks / nsteps = 192 x 16 / 30.
        assertEquals("102.4000", CFormat.fixed(m.bandwidth(CollFunc.ALL_REDUCE, Algorithm.RING, Protocol.SIMPLE), 4));
        // Not same channels: Broadcast pays a tree/Simple chunk per step, 8.4 + 16 x 28.
        assertEquals("456.4000", CFormat.fixed(m.latency(CollFunc.BROADCAST, Algorithm.RING, Protocol.SIMPLE), 4));
        assertEquals(0f, m.bandwidth(CollFunc.BROADCAST, Algorithm.TREE, Protocol.SIMPLE));
    }

    @Test
    void smallAllReduceUsesTreeLlWithOneChannelAndTwoWarps() {
        AlgoInfo info = AlgoSelector.select(dgxa100x2(0, 0, config()), CollFunc.ALL_REDUCE, 8, 0, 1, 0);
        assertEquals(Algorithm.TREE, info.algorithm());
        assertEquals(Protocol.LL, info.protocol());
        // 16 channels drop to 1, then 512 threads halve while a multiple of 128: 64.
        assertEquals(1, info.nChannels());
        assertEquals(64, info.nThreads());
    }

    @Test
    void largeAllReduceUsesRingSimpleWithAllChannelsAndASyncWarp() {
        AlgoInfo info = AlgoSelector.select(dgxa100x2(0, 0, config()), CollFunc.ALL_REDUCE, 1L << 30, 0, 1, 0);
        assertEquals(Algorithm.RING, info.algorithm());
        assertEquals(Protocol.SIMPLE, info.protocol());
        assertEquals(16, info.nChannels());
        assertEquals(512 + 32, info.nThreads());
    }

    @Test
    void treeSimpleGetsFourExtraWarps() {
        Config config = config("NCCL_ALGO", "Tree", "NCCL_PROTO", "Simple");
        AlgoInfo info = AlgoSelector.select(dgxa100x2(0, 0, config), CollFunc.ALL_REDUCE, 1L << 30, 0, 1, 0);
        assertEquals(Algorithm.TREE, info.algorithm());
        assertEquals(Protocol.SIMPLE, info.protocol());
        assertEquals(512 + 4 * 32, info.nThreads());
    }

    /** NCCL_NTHREADS and NCCL_LL128_NTHREADS reach the call: fewer threads per channel, more channels for a call. */
    @Test
    void threadCountsSetHowManyChannelsACallUses() {
        Config simple = config("NCCL_ALGO", "Ring", "NCCL_PROTO", "Simple");
        // 128 KiB over 512 threads x 64 B (Simple's thread threshold): 4 channels; over 64 threads: all 16.
        AlgoInfo auto = AlgoSelector.select(dgxa100x2(0, 0, simple), CollFunc.ALL_REDUCE, 128 << 10, 0, 1, 0);
        assertEquals(List.of(4, 512 + 32), List.of(auto.nChannels(), auto.nThreads()));
        Config few = config("NCCL_ALGO", "Ring", "NCCL_PROTO", "Simple", "NCCL_NTHREADS", "64");
        AlgoInfo set = AlgoSelector.select(dgxa100x2(0, 0, few), CollFunc.ALL_REDUCE, 128 << 10, 0, 1, 0);
        assertEquals(List.of(16, 64 + 32), List.of(set.nChannels(), set.nThreads()));

        // 20 KiB over 640 LL128 threads x 8 B: 4 channels; over 160 threads: all 16.
        Config ll128 = config("NCCL_ALGO", "Ring", "NCCL_PROTO", "LL128");
        assertEquals(4, AlgoSelector.select(dgxa100x2(0, 0, ll128), CollFunc.ALL_REDUCE, 20 << 10, 0, 1, 0).nChannels());
        Config ll128Few = config("NCCL_ALGO", "Ring", "NCCL_PROTO", "LL128", "NCCL_LL128_NTHREADS", "160");
        assertEquals(16, AlgoSelector.select(dgxa100x2(0, 0, ll128Few), CollFunc.ALL_REDUCE, 20 << 10, 0, 1, 0).nChannels());
    }

    @Test
    void collNetShrinksChannelsStepwise() {
        Config config = config("NCCL_ALGO", "CollNet");
        TuningModel m = dgxa100x2(1, 8, config);
        AlgoInfo info = AlgoSelector.select(m, CollFunc.ALL_REDUCE, 8, 1, 1, 0);
        assertEquals(Algorithm.COLLNET, info.algorithm());
        assertEquals(Protocol.SIMPLE, info.protocol());
        assertEquals(1, info.nChannels());
        assertEquals(512 + 4 * 32, info.nThreads());
        // Without CollNet support for the datatype nothing is left.
        NcclException e = assertThrows(NcclException.class, () -> AlgoSelector.select(m, CollFunc.ALL_REDUCE, 8, 0, 1, 0));
        assertEquals(Result.INTERNAL_ERROR, e.result());
    }

    @Test
    void singleRankChoosesNothing() {
        TopoGraph g = graph(0, TopoGraph.PATTERN_RING, 1, 10, 10, NVL, PIX);
        TuningContext ctx = new TuningContext(0, 1, 1, 2, 0, 0, 80, 80, new CpuType(Cpu.ARCH_X86, 0, 0));
        TuningModel m = TuningModel.compute(ctx, g, g, g, TuningProfile.NCCL_GPU, config());
        // Thread limits are set even for one rank; a ring of 1 x 10 GB/s (at most PCI) gets 256 Simple threads.
        assertEquals(256, m.maxThreads(Algorithm.RING, Protocol.SIMPLE));
        AlgoInfo info = AlgoSelector.select(m, CollFunc.ALL_REDUCE, 1024, 0, 1, 0);
        assertNull(info.algorithm());
        assertEquals(0f, m.bandwidth(CollFunc.ALL_REDUCE, Algorithm.RING, Protocol.SIMPLE));
    }

    @Test
    void userThreadCountsAreValidated() {
        assertEquals(512, ThreadCounts.getNthreads("NCCL_NTHREADS", -2, 64, 512, 512));
        assertEquals(256, ThreadCounts.getNthreads("NCCL_NTHREADS", 256, 64, 512, 512));
        assertEquals(512, ThreadCounts.getNthreads("NCCL_NTHREADS", 100, 64, 512, 512)); // not a warp multiple
        assertEquals(512, ThreadCounts.getNthreads("NCCL_NTHREADS", 1024, 64, 512, 512));
        assertEquals(64, ThreadCounts.getNthreads("NCCL_NTHREADS", 32, 64, 512, 512));
    }

    @Test
    void enableListsAndThresholds() {
        String[] protos = {"LL", "LL128", "Simple"};
        assertArrayEquals(new int[] {1, 0, 1}, EnableList.parse("^ll128", protos));
        assertArrayEquals(new int[] {0, 1, 1}, EnableList.parse("simple,,LL128,bogus", protos));
        assertArrayEquals(new long[] {1, -5, 3, -2, -2, -2}, TuningModel.scanLongs("  1 -5\t3x 4", 6));
        TuningModel m = dgxa100x2(0, 0, config("NCCL_THREAD_THRESHOLDS", "16 -1 32 7"));
        assertEquals(16, m.threadThreshold(Algorithm.TREE, Protocol.LL));
        assertEquals(8, m.threadThreshold(Algorithm.TREE, Protocol.LL128));
        assertEquals(32, m.threadThreshold(Algorithm.TREE, Protocol.SIMPLE));
        assertEquals(7, m.threadThreshold(Algorithm.RING, Protocol.LL));
        assertEquals(64, m.threadThreshold(Algorithm.RING, Protocol.SIMPLE));
        assertEquals(512, m.threadThreshold(Algorithm.COLLNET, Protocol.SIMPLE));
        assertEquals(8 * 16, dgxa100x2(0, 0, config()).threadThreshold(Algorithm.RING, Protocol.LL));
    }

    @Test
    void ll128IsAutoOnlyForVoltaOrAmpereOverNvlink() {
        assertEquals(0f, dgxa100x2(0, 0, config("NCCL_PROTO", "^LL128"))
                .bandwidth(CollFunc.ALL_REDUCE, Algorithm.RING, Protocol.LL128));
        TuningModel auto = dgxa100x2(0, 0, config());
        assertEquals("85.3333", CFormat.fixed(auto.bandwidth(CollFunc.ALL_REDUCE, Algorithm.RING, Protocol.LL128), 4));
    }

    @Test
    void buffSizesDefaultPerProtocolAndArch() {
        Config unset = config("NCCL_BUFFSIZE", "-2");
        assertEquals(new BuffSizes(524288, 4915200, 4194304), BuffSizes.of(unset));
        assertEquals(65536, BuffSizes.of(config("NCCL_LL_BUFFSIZE", "65536")).size(Protocol.LL));
    }

    @Test
    void infoTableHasNcclLayout() {
        List<String> t = TuningPrinter.infoTable(dgxa100x2(0, 0, config()));
        assertTrue(t.get(0).startsWith("Latency/AlgBw |    Tree/    LL |    Tree/ LL128 |    Tree/Simple |    Ring/    LL |"),
                t.get(0));
        assertTrue(t.get(1).startsWith(" Max NThreads |            512 |            640 |            512 |"), t.get(1));
        // Tree/LL AllReduce bandwidth is exactly 11.25: C prints the tie half-even.
        assertTrue(t.get(6).startsWith("    AllReduce |    27.5/  11.2 |"), t.get(6));
    }

    @Test
    void fixedFormatRoundsTheBinaryValueHalfEven() {
        assertEquals("0.12", CFormat.fixed(0.125, 2));   // exact tie: even
        assertEquals("1.000", CFormat.fixed(1.0005, 3)); // 1.000499999... in binary
        assertEquals("-1.000", CFormat.fixed(-1.0f, 3));
        assertEquals("-0.000", CFormat.fixed(-0.0001, 3));
        assertEquals("   456.4", CFormat.fixed(456.4f, 8, 1));
    }

    /** 1 node of 8 AMD GPUs with RCCL's tables: ring and tree 4 channels x 36 GB/s over xGMI. */
    private static TuningModel rccl8() {
        TopoGraph ring = graph(0, TopoGraph.PATTERN_RING, 4, 36, 36, NVL, NVL);
        TopoGraph tree = graph(1, TopoGraph.PATTERN_BALANCED_TREE, 4, 36, 36, NVL, NVL);
        TopoGraph collNet = graph(2, TopoGraph.PATTERN_TREE, 0, 36, 36, NVL, NVL);
        TuningContext ctx = new TuningContext(0, 8, 1, 4, 0, 0, 90, 90, new CpuType(Cpu.ARCH_X86, Cpu.VENDOR_AMD, 0));
        return TuningModel.compute(ctx, tree, ring, collNet, TuningProfile.RCCL_GPU, config());
    }

    @Test
    void amdGpusFollowRcclsFormulas() {
        TuningModel m = rccl8();
        // Ring: 144 GB/s x 8 ranks / 14 steps; LL x 0.05; LL128 off (NCCL's Volta/Ampere rule).
        assertEquals(144.0 * 8 / 14, m.bandwidth(CollFunc.ALL_REDUCE, Algorithm.RING, Protocol.SIMPLE), 1e-4);
        assertEquals(144.0 * 0.05 * 8 / 14, m.bandwidth(CollFunc.ALL_REDUCE, Algorithm.RING, Protocol.LL), 1e-4);
        assertEquals(0f, m.bandwidth(CollFunc.ALL_REDUCE, Algorithm.RING, Protocol.LL128));
        // Tree: Simple x 0.11 on one node, LL x 0.04, then halved.
        assertEquals(144.0 * 0.11 * 0.5, m.bandwidth(CollFunc.ALL_REDUCE, Algorithm.TREE, Protocol.SIMPLE), 1e-4);
        assertEquals(144.0 * 0.04 * 0.5, m.bandwidth(CollFunc.ALL_REDUCE, Algorithm.TREE, Protocol.LL), 1e-4);
        // Latencies: RCCL's 17 µs base (12 for LL) + 14 ring steps or 2 x 7 tree hops of its xGMI step latency.
        assertEquals(17 + 14 * 4.5, m.latency(CollFunc.ALL_REDUCE, Algorithm.RING, Protocol.SIMPLE), 1e-4);
        assertEquals(12 + 14 * 1.5, m.latency(CollFunc.ALL_REDUCE, Algorithm.RING, Protocol.LL), 1e-4);
        assertEquals(17 + 2 * 7 * 4.5, m.latency(CollFunc.ALL_REDUCE, Algorithm.TREE, Protocol.SIMPLE), 1e-4);
        // Time: ring/Simple at 1 MiB takes bucket log2(1 MiB / 64) = 14 (0.2); 16 GiB the last bucket (2.9).
        double ringBw = 144.0 * 8 / 14;
        assertEquals(80 + (1 << 20) / (1000 * ringBw * 0.2),
                m.algoTime(CollFunc.ALL_REDUCE, 1 << 20, Algorithm.RING, Protocol.SIMPLE, 1, 0), 1e-2);
        assertEquals(80 + (1L << 34) / (1000 * ringBw * 2.9),
                m.algoTime(CollFunc.ALL_REDUCE, 1L << 34, Algorithm.RING, Protocol.SIMPLE, 1, 0), 1);
        // Tree/LL at 8 B: bucket 0 (0.7).
        assertEquals(12 + 2 * 7 * 1.5 + 8 / (1000 * 144.0 * 0.04 * 0.5 * 0.7),
                m.algoTime(CollFunc.ALL_REDUCE, 8, Algorithm.TREE, Protocol.LL, 1, 0), 1e-3);
    }
}
