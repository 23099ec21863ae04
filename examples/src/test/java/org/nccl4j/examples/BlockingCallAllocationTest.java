package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.nccl4j.Communicator;
import org.nccl4j.DataType;
import org.nccl4j.Nccl;
import org.nccl4j.RedOp;

/**
 * A blocking call on an idle stream runs on the calling thread with nothing allocated for the
 * hand-off (no task, completion, future or lists), and a call with the same arguments as the one
 * before (a training loop's) reuses its checked op: it allocates nothing, so a long run of calls
 * meets no young-GC pause. The bytes a call allocates are counted by the JVM for the calling
 * thread, after the JIT has compiled the path; the hand-off objects alone came to over 100 bytes
 * a call, the op record to 56 more. Between two ranks the primitives address the peers' slots and
 * the staging by offset: a slice per step came to 120-240 bytes more a call.
 */
class BlockingCallAllocationTest {
    private static final int WARM_UP = 200_000;
    private static final int CALLS = 200_000;
    /** Nothing a call; rare allocations (a peer check's message) average out below this. */
    private static final long MAX_BYTES_PER_CALL = 2;

    @Test
    void aSmallBlockingAllReduceAllocatesNothing() {
        List<Communicator> comms = Nccl.commInitAll(1);
        Communicator c = comms.get(0);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment in = arena.allocate(8, 8);
            MemorySegment out = arena.allocate(8, 8);
            in.setAtIndex(ValueLayout.JAVA_FLOAT, 0, 1.5f);
            in.setAtIndex(ValueLayout.JAVA_FLOAT, 1, -2.25f);
            long perCall = bytesPerCall(c, in, out);
            assertEquals(1.5f, out.getAtIndex(ValueLayout.JAVA_FLOAT, 0));
            assertEquals(-2.25f, out.getAtIndex(ValueLayout.JAVA_FLOAT, 1));
            assertTrue(perCall <= MAX_BYTES_PER_CALL, "a blocking 8-byte AllReduce allocated " + perCall
                    + " bytes a call (at most " + MAX_BYTES_PER_CALL + ")");
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    /**
     * The reused op is the arguments' own: a call that differs from the one before in its op,
     * count or buffers only gets its own result (2 ranks: rank r holds r + 1, r + 2, ...).
     */
    @Test
    void callsWithOtherArgumentsGetTheirOwnResults() throws Exception {
        List<Communicator> comms = Nccl.commInitAll(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<List<List<Float>>>> seen = new ArrayList<>();
            for (Communicator c : comms) {
                seen.add(pool.submit(() -> {
                    try (Arena arena = Arena.ofShared()) {
                        MemorySegment in = arena.allocate(16, 8);
                        MemorySegment out = arena.allocate(16, 8);
                        for (int i = 0; i < 4; i++) {
                            in.setAtIndex(ValueLayout.JAVA_FLOAT, i, c.userRank() + 1 + i);
                        }
                        List<List<Float>> results = new ArrayList<>();
                        for (int round = 0; round < 2; round++) {
                            out.fill((byte) 0);
                            c.allReduce(in, out, 4, DataType.FLOAT32, RedOp.SUM);
                            results.add(floats(out, 4));
                            out.fill((byte) 0);
                            c.allReduce(in, out, 4, DataType.FLOAT32, RedOp.MAX);
                            results.add(floats(out, 4));
                            out.fill((byte) 0);
                            c.allReduce(in, out, 2, DataType.FLOAT32, RedOp.MAX);
                            results.add(floats(out, 4));
                            out.fill((byte) 0);
                            c.allReduce(in.asSlice(4), out.asSlice(8), 1, DataType.FLOAT32, RedOp.MAX);
                            results.add(floats(out, 4));
                        }
                        return results;
                    }
                }));
            }
            List<List<Float>> round = List.of(List.of(3f, 5f, 7f, 9f), List.of(2f, 3f, 4f, 5f), List.of(2f, 3f, 0f, 0f),
                    List.of(0f, 0f, 3f, 0f));
            List<List<Float>> expected = new ArrayList<>(round);
            expected.addAll(round);
            for (int r = 0; r < 2; r++) {
                assertEquals(expected, seen.get(r).get(5, TimeUnit.MINUTES), "rank " + r);
            }
        } finally {
            pool.shutdownNow();
            comms.forEach(Communicator::abort);
        }
    }

    private static List<Float> floats(MemorySegment s, int n) {
        List<Float> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(s.getAtIndex(ValueLayout.JAVA_FLOAT, i));
        }
        return l;
    }

    @Test
    void aSmallBlockingAllReduceOfTwoRanksAllocatesNothingPerStep() throws Exception {
        List<Communicator> comms = Nccl.commInitAll(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Long>> perCall = new ArrayList<>();
            for (Communicator c : comms) {
                perCall.add(pool.submit(() -> {
                    try (Arena arena = Arena.ofShared()) {
                        MemorySegment in = arena.allocate(8, 8);
                        MemorySegment out = arena.allocate(8, 8);
                        in.setAtIndex(ValueLayout.JAVA_FLOAT, 0, 1.5f + c.userRank());
                        in.setAtIndex(ValueLayout.JAVA_FLOAT, 1, -2.25f);
                        long bytes = bytesPerCall(c, in, out);
                        assertEquals(4.0f, out.getAtIndex(ValueLayout.JAVA_FLOAT, 0));
                        assertEquals(-4.5f, out.getAtIndex(ValueLayout.JAVA_FLOAT, 1));
                        return bytes;
                    }
                }));
            }
            for (int r = 0; r < 2; r++) {
                long bytes = perCall.get(r).get(5, TimeUnit.MINUTES);
                assertTrue(bytes <= MAX_BYTES_PER_CALL, "rank " + r + ": a blocking 8-byte AllReduce of 2 ranks "
                        + "allocated " + bytes + " bytes a call (at most " + MAX_BYTES_PER_CALL + ")");
            }
        } finally {
            pool.shutdownNow();
            comms.forEach(Communicator::abort);
        }
    }

    /** The bytes the calling thread allocates per blocking 8-byte AllReduce, once the JIT has compiled the path. */
    private static long bytesPerCall(Communicator c, MemorySegment in, MemorySegment out) {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < WARM_UP; i++) {
            c.allReduce(in, out, 2, DataType.FLOAT32, RedOp.SUM);
        }
        long me = Thread.currentThread().threadId();
        long before = threads.getThreadAllocatedBytes(me);
        for (int i = 0; i < CALLS; i++) {
            c.allReduce(in, out, 2, DataType.FLOAT32, RedOp.SUM);
        }
        return (threads.getThreadAllocatedBytes(me) - before) / CALLS;
    }
}
