package org.nccl4j.core.init;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;
import org.nccl4j.core.kernel.AlgoChooser;
import org.nccl4j.core.op.CollOp;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.topo.search.TopoGraph;
import org.nccl4j.core.topo.system.Cpu;
import org.nccl4j.core.topo.tuning.Algorithm;
import org.nccl4j.core.topo.tuning.CpuType;
import org.nccl4j.core.topo.tuning.TuningContext;
import org.nccl4j.core.topo.tuning.TuningModel;
import org.nccl4j.core.topo.tuning.TuningProfile;

/** Where the host engine's chooser takes recursive doubling, on host tuning models. */
class ModelAlgoChooserTest {
    private static ModelAlgoChooser chooser(int nranks, int nNodes, String algo) {
        return chooser(nranks, nNodes, algo, false);
    }

    private static ModelAlgoChooser chooser(int nranks, int nNodes, String algo, boolean pairOverNet) {
        Map<String, String> env = new HashMap<>();
        if (algo != null) {
            env.put("NCCL_ALGO", algo);
        }
        Config config = Config.of(new Properties(), env, Path.of("/nonexistent/nccl.conf"));
        TopoGraph ring = graph(0, TopoGraph.PATTERN_RING);
        TopoGraph tree = graph(1, TopoGraph.PATTERN_BALANCED_TREE);
        TopoGraph collNet = graph(2, TopoGraph.PATTERN_TREE);
        TuningContext ctx = new TuningContext(0, nranks, nNodes, 2, 0, 0, 0, 0, new CpuType(Cpu.ARCH_X86, Cpu.VENDOR_INTEL, 0));
        return new ModelAlgoChooser(TuningModel.compute(ctx, tree, ring, collNet, TuningProfile.HOST, config), algo, pairOverNet);
    }

    private static TopoGraph graph(int id, int pattern) {
        TopoGraph g = new TopoGraph();
        g.id = id;
        g.pattern = pattern;
        g.nChannels = 2;
        g.speedIntra = 12;
        g.speedInter = 12;
        g.typeIntra = 4;
        g.typeInter = 4;
        return g;
    }

    private static Algorithm allReduce(ModelAlgoChooser c, long bytes, int nranks) {
        return c.choose(op(CollOp.Func.ALL_REDUCE, bytes), nranks).algorithm();
    }

    private static CollOp op(CollOp.Func f, long bytes) {
        return new CollOp(f, MemorySegment.NULL, MemorySegment.NULL, bytes / 4, DataType.FLOAT32, RedOp.SUM,
                f == CollOp.Func.BROADCAST || f == CollOp.Func.REDUCE ? 0 : -1);
    }

    @Test
    void smallAllReducesOfTwoAndOfFourToSixteenRanksOnANodeRunByRecursiveDoublingLargeOnesByRing() {
        for (int n : new int[] {2, 4, 5, 8, 16}) {
            ModelAlgoChooser c = chooser(n, 1, null);
            assertTrue(c.mayChooseRecursiveDoubling(n), n + " ranks");
            assertEquals(Algorithm.RECURSIVE_DOUBLING, allReduce(c, 8, n), n + " ranks, 8 B");
            assertNotEquals(Algorithm.RECURSIVE_DOUBLING, allReduce(c, 16 << 20, n), n + " ranks, 16 MiB");
            assertEquals(Algorithm.RING, c.choose(op(CollOp.Func.ALL_GATHER, 8), n).algorithm(), "AllGather");
            for (long bytes = 8; bytes <= 16 << 20; bytes *= 4) {
                assertNotEquals(Algorithm.HALVING_DOUBLING, allReduce(c, bytes, n), n + " ranks, " + bytes
                        + " B: halving-doubling only where NCCL_ALGO names it");
            }
        }
    }

    @Test
    void threeRanksOnANodeOnlyWhenNamedAloneTwoWithLlOnlyAndTwoAcrossNodesForSmallCalls() {
        ModelAlgoChooser c = chooser(3, 1, null);
        assertFalse(c.mayChooseRecursiveDoubling(3));
        assertEquals(Algorithm.RING, allReduce(c, 8, 3));
        ModelAlgoChooser named = chooser(3, 1, "RecDbl");
        assertTrue(named.mayChooseRecursiveDoubling(3), "NCCL_ALGO=RecDbl");
        assertEquals(Algorithm.RECURSIVE_DOUBLING, allReduce(named, 8, 3), "NCCL_ALGO=RecDbl");
        assertFalse(chooser(3, 1, "Ring,RecDbl").mayChooseRecursiveDoubling(3), "3 ranks, NCCL_ALGO=Ring,RecDbl");
        assertTrue(chooser(2, 1, "Ring,RecDbl").mayChooseRecursiveDoubling(2), "2 ranks, NCCL_ALGO=Ring,RecDbl");
        assertFalse(chooser(2, 1, "^RecDbl,HalvDbl").mayChooseRecursiveDoubling(2), "2 ranks, NCCL_ALGO=^RecDbl,HalvDbl");
        ModelAlgoChooser two = chooser(2, 1, null);
        for (long bytes = 8; bytes <= 16 << 20; bytes *= 4) {
            AlgoChooser.Choice ch = two.choose(op(CollOp.Func.ALL_REDUCE, bytes), 2);
            assertTrue(ch.algorithm() != Algorithm.RECURSIVE_DOUBLING || ch.protocol() == Protocol.LL,
                    "2 ranks on a node take it with LL only: " + bytes + " B " + ch);
        }
        ModelAlgoChooser across = chooser(2, 2, null);
        assertTrue(across.mayChooseRecursiveDoubling(2));
        assertEquals(Algorithm.RECURSIVE_DOUBLING, allReduce(across, 8, 2));
        assertFalse(chooser(17, 1, null).mayChooseRecursiveDoubling(17), "more than 16 ranks");
    }

    @Test
    void ncclAlgoExcludesOrForcesIt() {
        assertFalse(chooser(8, 1, "^RecDbl,HalvDbl").mayChooseRecursiveDoubling(8));
        assertTrue(chooser(8, 1, "^RecDbl").mayChooseRecursiveDoubling(8), "HalvDbl is still allowed");
        assertNotEquals(Algorithm.RECURSIVE_DOUBLING, allReduce(chooser(8, 1, "^RecDbl"), 8, 8));
        assertEquals(Algorithm.RING, allReduce(chooser(8, 1, "Ring"), 8, 8));
        assertEquals(Algorithm.RECURSIVE_DOUBLING, allReduce(chooser(8, 1, "RecDbl"), 16 << 20, 8),
                "named alone, it runs every AllReduce");
        assertEquals(Algorithm.HALVING_DOUBLING, allReduce(chooser(8, 1, "HalvDbl"), 8, 8),
                "named alone, it runs every AllReduce");
        // Both named: the fewer hops for a small call, the fewer bytes for a large one.
        assertEquals(Algorithm.RECURSIVE_DOUBLING, allReduce(chooser(8, 1, "RecDbl,HalvDbl"), 8, 8));
        assertEquals(Algorithm.HALVING_DOUBLING, allReduce(chooser(8, 1, "RecDbl,HalvDbl"), 16 << 20, 8));
        assertEquals(Algorithm.RECURSIVE_DOUBLING, allReduce(chooser(8, 1, "Ring,RecDbl"), 8, 8));
        assertEquals(Algorithm.RING, allReduce(chooser(8, 1, "Ring,RecDbl"), 16 << 20, 8));
    }

    @Test
    void rememberedChoicesAreTheOnesRatedAfresh() {
        // 5 kinds x 31 sizes share 64 slots: entries displace each other, and every answer of the
        // long-lived chooser must still be what a new one (nothing remembered) rates.
        ModelAlgoChooser kept = chooser(8, 1, null);
        for (int round = 0; round < 3; round++) {
            for (CollOp.Func f : CollOp.Func.values()) {
                for (int shift = 2; shift <= 32; shift++) {
                    CollOp op = op(f, 1L << shift);
                    assertEquals(chooser(8, 1, null).choose(op, 8), kept.choose(op, 8), f + " of 2^" + shift + " bytes");
                }
            }
        }
    }

    @Test
    void twoRanksOnANodeThatReachEachOtherThroughTheNetTakeRecursiveDoublingWithSimpleUpTo64KiB() {
        ModelAlgoChooser overNet = chooser(2, 1, null, true);
        for (long bytes : new long[] {2048, 16 << 10, 64 << 10}) {
            assertEquals(new AlgoChooser.Choice(Algorithm.RECURSIVE_DOUBLING, Protocol.SIMPLE, 1),
                    overNet.choose(op(CollOp.Func.ALL_REDUCE, bytes), 2), bytes + " B");
        }
        assertEquals(Algorithm.RING, allReduce(overNet, (64 << 10) + 4, 2), "64 KiB + 4 B");
        assertEquals(Algorithm.RING, allReduce(overNet, 1 << 20, 2), "1 MiB");
        assertEquals(Algorithm.RING, allReduce(overNet, 16 << 20, 2), "16 MiB");
        assertEquals(Algorithm.RING, allReduce(chooser(2, 1, "Ring", true), 16 << 10, 2), "NCCL_ALGO=Ring");
        assertEquals(new AlgoChooser.Choice(Algorithm.RING, Protocol.SIMPLE, 1),
                chooser(2, 1, null, false).choose(op(CollOp.Func.ALL_REDUCE, 2048), 2), "2 KiB over shared memory");
    }
}
