package org.nccl4j.core.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nccl4j.Communicator;
import org.nccl4j.Completion;
import org.nccl4j.DataType;
import org.nccl4j.Nccl;
import org.nccl4j.RedOp;

class SmokeCollectivesTest {
    @Test
    void allReduceFloatSumThreads() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (int n : new int[] {1, 2, 3, 4}) {
                List<Communicator> comms = Nccl.commInitAll(n);
                long count = 1_000_003;
                List<MemorySegment> bufs = new ArrayList<>();
                Arena arena = Arena.ofShared();
                Nccl.groupStart();
                List<Completion> cs = new ArrayList<>();
                for (int r = 0; r < n; r++) {
                    MemorySegment s = arena.allocate(count * 4);
                    for (long i = 0; i < count; i++) {
                        s.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) ((i % 97) + r));
                    }
                    MemorySegment d = arena.allocate(count * 4);
                    bufs.add(d);
                    Communicator c = comms.get(r);
                    cs.add(c.allReduce(s, d, count, DataType.FLOAT32, RedOp.SUM, c.defaultStream()));
                }
                Nccl.groupEnd();
                cs.forEach(Completion::await);
                for (int r = 0; r < n; r++) {
                    for (long i = 0; i < count; i += 7919) {
                        float want = (float) (n * (i % 97) + n * (n - 1) / 2);
                        assertEquals(want, bufs.get(r).getAtIndex(ValueLayout.JAVA_FLOAT, i), "rank " + r + " i " + i);
                    }
                }
                comms.forEach(Communicator::close);
                arena.close();
            }
        });
    }
}
