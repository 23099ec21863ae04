package org.nccl4j.core.matrix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nccl4j.Communicator;
import org.nccl4j.Completion;
import org.nccl4j.Nccl;

/** The correctness matrix with ranks as threads of this JVM (in-process transport). */
class ThreadMatrixTest {
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void matrix(int nranks) {
        assertTimeoutPreemptively(Duration.ofMinutes(MatrixCases.full() ? 30 : 2), () -> {
            List<Communicator> comms = Nccl.commInitAll(nranks);
            try {
                run(comms, MatrixCases.cases(nranks, nranks == 8 ? 25 : 60));
            } finally {
                comms.forEach(Communicator::close);
            }
        });
    }

    /**
     * Runs each case on all ranks at once (one group) and checks every rank's result.
     *
     * @param comms one communicator per rank, in rank order
     * @param cases the cases
     */
    static void run(List<Communicator> comms, List<CollectiveCase> cases) {
        int nranks = comms.size();
        for (CollectiveCase c : cases) {
            try (Arena arena = Arena.ofShared()) {
                List<CollectiveCase.RankBuffers> bufs = new ArrayList<>();
                List<Completion> done = new ArrayList<>();
                Nccl.groupStart();
                for (int r = 0; r < nranks; r++) {
                    CollectiveCase.RankBuffers b = c.buffers(arena, r, nranks);
                    bufs.add(b);
                    done.add(b.enqueue(comms.get(r), comms.get(r).defaultStream()));
                }
                Nccl.groupEnd();
                done.forEach(Completion::await);
                for (int r = 0; r < nranks; r++) {
                    assertEquals(0, bufs.get(r).wrong(), c + " rank " + r + " of " + nranks);
                }
            }
        }
    }
}
