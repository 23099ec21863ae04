package org.nccl4j.core.matrix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.DataType;
import org.nccl4j.Nccl;
import org.nccl4j.RedOp;
import org.nccl4j.core.comm.CoreCommunicator;
import org.nccl4j.core.op.CollOp;
import org.nccl4j.core.topo.tuning.Algorithm;
import org.nccl4j.core.proto.Protocol;

/**
 * The thread matrix's CI sample with each algorithm and protocol forced through
 * {@code NCCL_ALGO} and {@code NCCL_PROTO}: Ring, Tree and the host engine's recursive doubling
 * and halving-doubling × LL, LL128 and Simple, on three ranks with two channels (the host
 * engine's own on four, and on five, six and eight). Tree and the host engine's own run AllReduce only, so their sample is AllReduce cases;
 * the other collectives still run (on Ring) in the Ring combinations.
 */
class ProtocolMatrixTest {
    static Stream<Arguments> combos() {
        List<Arguments> a = new ArrayList<>();
        for (Algorithm algo : List.of(Algorithm.TREE, Algorithm.RING)) {
            for (Protocol proto : Protocol.values()) {
                a.add(Arguments.of(algo, proto, 3, 2));
            }
        }
        // Recursive doubling (4 to 16 ranks) with a power of two (no folding), and with five and
        // six ranks (one and two folded pairs).
        for (Protocol proto : Protocol.values()) {
            a.add(Arguments.of(Algorithm.RECURSIVE_DOUBLING, proto, 4, 2));
        }
        a.add(Arguments.of(Algorithm.RECURSIVE_DOUBLING, Protocol.LL128, 5, 1));
        a.add(Arguments.of(Algorithm.RECURSIVE_DOUBLING, Protocol.LL, 6, 1));
        a.add(Arguments.of(Algorithm.RECURSIVE_DOUBLING, Protocol.SIMPLE, 6, 1));
        // Halving and doubling: the same partners, four and eight ranks, and five and six folded.
        for (Protocol proto : Protocol.values()) {
            a.add(Arguments.of(Algorithm.HALVING_DOUBLING, proto, 4, 1));
        }
        a.add(Arguments.of(Algorithm.HALVING_DOUBLING, Protocol.SIMPLE, 8, 1));
        a.add(Arguments.of(Algorithm.HALVING_DOUBLING, Protocol.LL, 5, 1));
        a.add(Arguments.of(Algorithm.HALVING_DOUBLING, Protocol.LL128, 6, 1));
        return a.stream();
    }

    @Test
    void hostAlgorithmsRunTwoAndThreeRanksWhenNamedAlone() {
        assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
            for (Algorithm algo : Algorithm.HOST) {
                for (int n : new int[] {2, 3}) {
                    List<Communicator> comms = Nccl.commInitAll(n, CommConfig.builder().param("NCCL_ALGO",
                            algo.ncclName()).build());
                    try {
                        CollOp probe = new CollOp(CollOp.Func.ALL_REDUCE, MemorySegment.NULL, MemorySegment.NULL, 1,
                                DataType.FLOAT32, RedOp.SUM, -1);
                        assertEquals(algo, ((CoreCommunicator) comms.get(0)).engine().choose(probe).algorithm(),
                                n + " ranks");
                        ThreadMatrixTest.run(comms, List.of(new CollectiveCase("allreduce", DataType.INT32, RedOp.SUM, 7,
                                false, 0), new CollectiveCase("allreduce", DataType.FLOAT32, RedOp.AVG, 100_003, true, 0)));
                    } finally {
                        comms.forEach(Communicator::close);
                    }
                }
            }
        });
    }

    /** The sample's AllReduce cases, and AVG and MIN (which the sample's walk skips), whose pre- and post-ops matter. */
    private static List<CollectiveCase> allReduceCases(int nranks) {
        List<CollectiveCase> cases = new ArrayList<>(MatrixCases.cases(nranks, 12, "allreduce"));
        for (DataType t : List.of(DataType.INT32, DataType.FLOAT32, DataType.UINT8)) {
            cases.add(new CollectiveCase("allreduce", t, RedOp.AVG, 300_007, false, 0));
            cases.add(new CollectiveCase("allreduce", t, RedOp.AVG, 7, true, 0));
        }
        cases.add(new CollectiveCase("allreduce", DataType.FLOAT64, RedOp.MIN, 1_048_583, true, 0));
        return cases;
    }

    @ParameterizedTest(name = "{0} {1}, {2} ranks, {3} channels")
    @MethodSource("combos")
    void matrix(Algorithm algo, Protocol proto, int nranks, int channels) {
        assertTimeoutPreemptively(Duration.ofMinutes(MatrixCases.full() ? 30 : 2), () -> {
            CommConfig cfg = CommConfig.builder().param("NCCL_ALGO", algo.ncclName()).param("NCCL_PROTO", proto.ncclName())
                    .param("NCCL_MIN_NCHANNELS", Integer.toString(channels))
                    .param("NCCL_MAX_NCHANNELS", Integer.toString(channels)).build();
            List<Communicator> comms = Nccl.commInitAll(nranks, cfg);
            try {
                CollOp probe = new CollOp(CollOp.Func.ALL_REDUCE, MemorySegment.NULL, MemorySegment.NULL, 1,
                        DataType.FLOAT32, RedOp.SUM, -1);
                CollOp chosen = ((CoreCommunicator) comms.get(0)).engine().choose(probe);
                assertEquals(algo, chosen.algorithm());
                assertEquals(proto, chosen.protocol());
                ThreadMatrixTest.run(comms, algo != Algorithm.RING ? allReduceCases(nranks) : MatrixCases.cases(nranks, 20));
            } finally {
                comms.forEach(Communicator::close);
            }
        });
    }
}
