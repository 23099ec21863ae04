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

/** Counts above 2^31 elements: offsets and sizes are 64-bit all the way through. */
class LargeCountTest {
    @Test
    void allReduceOfMoreThanTwoToTheThirtyOneElements() {
        assertTimeoutPreemptively(Duration.ofMinutes(3), () -> {
            long count = (1L << 31) + 77; // int8: 2 GiB + 77 bytes per rank, in place
            List<Communicator> comms = Nccl.commInitAll(2);
            try (Arena arena = Arena.ofShared()) {
                List<MemorySegment> bufs = new ArrayList<>();
                for (int r = 0; r < 2; r++) {
                    MemorySegment b = arena.allocate(count, 64);
                    b.fill((byte) (r + 1));
                    b.set(ValueLayout.JAVA_BYTE, count - 1, (byte) (10 * (r + 1))); // the last element past 2^31
                    bufs.add(b);
                }
                Nccl.groupStart();
                List<Completion> done = new ArrayList<>();
                for (int r = 0; r < 2; r++) {
                    Communicator c = comms.get(r);
                    done.add(c.allReduce(bufs.get(r), bufs.get(r), count, DataType.INT8, RedOp.SUM, c.defaultStream()));
                }
                Nccl.groupEnd();
                done.forEach(Completion::await);
                for (int r = 0; r < 2; r++) {
                    MemorySegment b = bufs.get(r);
                    for (long i : new long[] {0, 1L << 30, (1L << 31) - 1, 1L << 31, count - 2}) {
                        assertEquals(3, b.get(ValueLayout.JAVA_BYTE, i), "rank " + r + " element " + i);
                    }
                    assertEquals(30, b.get(ValueLayout.JAVA_BYTE, count - 1), "rank " + r + " last element");
                }
            } finally {
                comms.forEach(Communicator::close);
            }
        });
    }
}
