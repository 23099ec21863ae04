package org.nccl4j.core.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.core.comm.CoreCommunicator;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.transport.Conn;

/**
 * Ring collectives on Simple between ranks that are threads of one JVM, with ordinary native
 * buffers that the receivers read where they lie (NCCL's P2P direct pointers): {@link InPlaceRankMain}'s
 * checks, exact on 2 and 3 ranks with 8 KiB steps. With 2 ranks every step of those collectives
 * leaves the caller's memory as it is, so no byte is ever written into a receive connection's
 * Simple buffer; with {@code NCCL_P2P_DIRECT_DISABLE=1} the steps go through it.
 */
class ThreadsInPlaceTest {
    /**
     * Runs the checks on {@code n} thread ranks.
     *
     * @return per rank, the bytes not zero in its ring receive connections' Simple buffers
     */
    private static List<Long> run(int n, boolean directDisabled) throws Exception {
        CommConfig.Builder cfg = CommConfig.builder().param("NCCL_ALGO", "Ring").param("NCCL_PROTO", "Simple")
                .param("NCCL_BUFFSIZE", "65536");
        if (directDisabled) {
            cfg.param("NCCL_P2P_DIRECT_DISABLE", "1");
        }
        List<Communicator> comms = Nccl.commInitAll(n, cfg.build());
        ExecutorService pool = Executors.newFixedThreadPool(n);
        Arena arena = Arena.ofShared();
        try {
            List<Future<?>> ranks = new ArrayList<>();
            for (Communicator c : comms) {
                MemorySegment a = arena.allocate(InPlaceRankMain.BYTES, 64);
                MemorySegment b = arena.allocate(InPlaceRankMain.BYTES, 64);
                MemorySegment all = arena.allocate(n * InPlaceRankMain.BYTES, 64);
                ranks.add(pool.submit(() -> {
                    InPlaceRankMain.allReduces(c, a, b);
                    InPlaceRankMain.otherCollectives(c, a, b, all);
                    return null;
                }));
            }
            for (Future<?> f : ranks) {
                f.get(120, TimeUnit.SECONDS);
            }
            List<Long> written = new ArrayList<>();
            for (Communicator c : comms) {
                Engine e = ((CoreCommunicator) c).engine();
                long nonZero = 0;
                for (int ch = 0; ch < e.channelCount(); ch++) {
                    Conn r = e.ringRecv(ch);
                    MemorySegment slots = r.buff(Protocol.SIMPLE);
                    for (long i = 0; i < slots.byteSize(); i++) {
                        nonZero += slots.get(ValueLayout.JAVA_BYTE, i) != 0 ? 1 : 0;
                    }
                }
                written.add(nonZero);
            }
            return written;
        } finally {
            // A rank still waiting (a failed run) ends before its buffers go.
            comms.forEach(Communicator::abort);
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
            comms.forEach(Communicator::close);
            arena.close();
        }
    }

    @Test
    void ranksOfOneProcessReadEachOthersBuffersWhereTheyLieAndSumExactly() throws Exception {
        assertEquals(List.of(0L, 0L), run(2, false), "bytes written into the ring receive buffers");
        run(3, false);
    }

    @Test
    void withDirectPointersDisabledTheStepsGoThroughTheConnectionsBuffers() throws Exception {
        for (long w : run(2, true)) {
            assertTrue(w > 0, "a receive buffer was never written");
        }
    }
}
