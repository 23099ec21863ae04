package org.nccl4j.examples.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.RedOp;
import org.nccl4j.Stream;

/** The data check finds every wrong element, and only those. */
class TestDataTest {
    @Test
    void corruptedElementsAreCounted() throws Exception {
        List<Communicator> comms = Nccl.commInitAll(2);
        try (Arena arena = Arena.ofShared()) {
            long count = 1000;
            ByteCounts c = Collective.ALLREDUCE.counts(count, 2);
            MemorySegment[] send = {arena.allocate(4 * count), arena.allocate(4 * count)};
            MemorySegment[] recv = {arena.allocate(4 * count), arena.allocate(4 * count)};
            TestData[] data = new TestData[2];
            CompletableFuture<?>[] done = new CompletableFuture<?>[2];
            Nccl.groupStart(); // one thread drives both ranks, as NCCL requires
            for (int r = 0; r < 2; r++) {
                data[r] = new TestData(Collective.ALLREDUCE, ElementType.FLOAT, RedOp.SUM, 2, r, 0);
                data[r].fill(send[r], recv[r], c, false, 7);
                Communicator comm = comms.get(r);
                Stream s = comm.defaultStream();
                done[r] = comm.allReduce(send[r], recv[r], count, ElementType.FLOAT.type(), RedOp.SUM, s).future();
            }
            Nccl.groupEnd();
            CompletableFuture.allOf(done).get();
            assertEquals(0, data[0].check(recv[0], c, false, 7));
            assertEquals(0, data[1].check(recv[1], c, false, 7));
            // Another repetition's inputs differ: nearly every element is then wrong.
            assertTrue(data[0].check(recv[0], c, false, 8) > count / 2);
            ElementType.FLOAT.write(recv[1], 17, ElementType.FLOAT.read(recv[1], 17) ^ 1); // one ulp off
            ElementType.FLOAT.write(recv[1], 999, ElementType.FLOAT.encode(123));
            assertEquals(2, data[1].check(recv[1], c, false, 7));
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    @Test
    void integerReductionsWrapAndCompareAsNcclDoes() {
        Expected e = new Expected(ElementType.UINT8, RedOp.MAX, 2);
        e.reset();
        e.add(-1); // 255 as uint8: the unsigned maximum
        e.add(3);
        assertTrue(e.matches(255));
        e = new Expected(ElementType.INT8, RedOp.MAX, 2);
        e.reset();
        e.add(-1);
        e.add(3);
        assertTrue(e.matches(3));
        e = new Expected(ElementType.INT8, RedOp.AVG, 2);
        e.reset();
        e.add(-3);
        e.add(0);
        assertTrue(e.matches(-1 & 0xff)); // C's truncation toward zero: -3 / 2 = -1
        e = new Expected(ElementType.UINT32, RedOp.SUM, 2);
        e.reset();
        e.add(-4);
        e.add(3);
        assertTrue(e.matches(0xffff_ffffL)); // wraps
    }

    @Test
    void floatAverageAllowsThePremultipliedRounding() {
        Expected e = new Expected(ElementType.BFLOAT16, RedOp.AVG, 3);
        e.reset();
        for (int v : new int[] {3, 3, 2}) {
            e.add(v);
        }
        double exact = 8.0 / 3;
        assertTrue(e.matches(ElementType.BFLOAT16.encodeDouble(exact)));
        assertTrue(!e.matches(ElementType.BFLOAT16.encodeDouble(exact + 1)));
    }
}
