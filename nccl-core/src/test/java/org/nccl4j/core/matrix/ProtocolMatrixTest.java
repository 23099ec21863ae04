package org.nccl4j.core.matrix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
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
 * {@code NCCL_ALGO} and {@code NCCL_PROTO}: Ring and Tree × LL, LL128 and Simple, on two ranks
 * with one channel and on four ranks with two channels. Tree runs AllReduce only, so its sample
 * is AllReduce cases; the other collectives still run (on Ring) in the Ring combinations.
 */
class ProtocolMatrixTest {
    static Stream<Arguments> combos() {
        List<Arguments> a = new ArrayList<>();
        for (Algorithm algo : List.of(Algorithm.TREE, Algorithm.RING)) {
            for (Protocol proto : Protocol.values()) {
                a.add(Arguments.of(algo, proto, 3, 2));
            }
        }
        return a.stream();
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
                ThreadMatrixTest.run(comms, algo == Algorithm.TREE ? MatrixCases.cases(nranks, 12, "allreduce")
                        : MatrixCases.cases(nranks, 20));
            } finally {
                comms.forEach(Communicator::close);
            }
        });
    }
}
