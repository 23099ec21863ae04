package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
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
 * before (a training loop's) reuses its checked op, the array forms their segment over the array:
 * it allocates nothing, so a long run of calls meets no young-GC pause. The bytes a call allocates
 * are counted by the JVM for the calling thread, after the JIT has compiled the path; the hand-off
 * objects alone came to over 100 bytes a call, the op record to 56 more, an array's segment to
 * ~100 more. Between two ranks the primitives address the peers' slots and the staging by offset:
 * a slice per step came to 120-240 bytes more a call.
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
            long perCall = bytesPerCall(WARM_UP, CALLS, () -> c.allReduce(in, out, 2, DataType.FLOAT32, RedOp.SUM));
            assertEquals(1.5f, out.getAtIndex(ValueLayout.JAVA_FLOAT, 0));
            assertEquals(-2.25f, out.getAtIndex(ValueLayout.JAVA_FLOAT, 1));
            assertTrue(perCall <= MAX_BYTES_PER_CALL, "a blocking 8-byte AllReduce allocated " + perCall
                    + " bytes a call (at most " + MAX_BYTES_PER_CALL + ")");
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    @Test
    void aSmallBlockingAllReduceOfTwoRanksAllocatesNothingPerStep() throws Exception {
        List<Long> perCall = onTwoRanks(c -> {
            try (Arena arena = Arena.ofShared()) {
                MemorySegment in = arena.allocate(8, 8);
                MemorySegment out = arena.allocate(8, 8);
                in.setAtIndex(ValueLayout.JAVA_FLOAT, 0, 1.5f + c.userRank());
                in.setAtIndex(ValueLayout.JAVA_FLOAT, 1, -2.25f);
                long bytes = bytesPerCall(WARM_UP, CALLS, () -> c.allReduce(in, out, 2, DataType.FLOAT32, RedOp.SUM));
                assertEquals(4.0f, out.getAtIndex(ValueLayout.JAVA_FLOAT, 0));
                assertEquals(-4.5f, out.getAtIndex(ValueLayout.JAVA_FLOAT, 1));
                return bytes;
            }
        });
        assertNothingAllocated(perCall, "a blocking 8-byte AllReduce of 2 ranks");
    }

    /**
     * A training loop's call: the same gradient array reduced in place every step (the array
     * form makes a segment over it, kept for the next call), 2 ranks, AVG, as {@code train}.
     */
    @Test
    void aTrainingLoopsArrayAllReduceAllocatesNothingPerStep() throws Exception {
        List<Long> perCall = onTwoRanks(c -> {
            float[] grad = new float[4547];
            long bytes = bytesPerCall(20_000, 20_000, () -> {
                Arrays.fill(grad, c.userRank() == 0 ? 1f : 3f);
                c.allReduce(grad, RedOp.AVG);
            });
            for (float g : grad) {
                assertEquals(2f, g);
            }
            return bytes;
        });
        assertNothingAllocated(perCall, "an in-place AllReduce of a 4547-float array");
    }

    /**
     * The reused op is the arguments' own: a call that differs from the one before in its op,
     * count or buffers only gets its own result (rank r holds r + 1, r + 2, ...).
     */
    @Test
    void callsWithOtherArgumentsGetTheirOwnResults() throws Exception {
        List<List<List<Float>>> seen = onTwoRanks(c -> {
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
        });
        List<List<Float>> round = List.of(List.of(3f, 5f, 7f, 9f), List.of(2f, 3f, 4f, 5f), List.of(2f, 3f, 0f, 0f),
                List.of(0f, 0f, 3f, 0f));
        List<List<Float>> expected = new ArrayList<>(round);
        expected.addAll(round);
        assertEquals(List.of(expected, expected), seen);
    }

    /** Arrays in turn: each call reduces its own array (the kept segment is the array's own). */
    @Test
    void arraysInTurnGetTheirOwnResults() throws Exception {
        List<List<Object>> seen = onTwoRanks(c -> {
            List<Object> results = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                float[] a = {1f, 2f};
                float[] b = {3f, 4f, 5f};
                int[] i = {7};
                c.allReduce(a, RedOp.SUM);
                c.allReduce(b, RedOp.SUM);
                c.allReduce(i, RedOp.SUM);
                c.allReduce(a, RedOp.SUM);
                results.add(List.of(a[0], a[1], b[0], b[1], b[2], i[0]));
            }
            return results;
        });
        List<Object> round = List.of(4f, 8f, 6f, 8f, 10f, 14);
        assertEquals(List.of(List.of(round, round, round), List.of(round, round, round)), seen);
    }

    private static void assertNothingAllocated(List<Long> perCall, String what) {
        for (int r = 0; r < perCall.size(); r++) {
            assertTrue(perCall.get(r) <= MAX_BYTES_PER_CALL, "rank " + r + ": " + what + " allocated " + perCall.get(r)
                    + " bytes a call (at most " + MAX_BYTES_PER_CALL + ")");
        }
    }

    /** What one rank's thread does, with its communicator. */
    private interface RankWork<T> {
        T run(Communicator c) throws Exception;
    }

    /** Runs {@code work} on each of 2 thread ranks: @return each rank's answer, in rank order */
    private static <T> List<T> onTwoRanks(RankWork<T> work) throws Exception {
        List<Communicator> comms = Nccl.commInitAll(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (Communicator c : comms) {
                futures.add(pool.submit(() -> work.run(c)));
            }
            List<T> answers = new ArrayList<>();
            for (Future<T> f : futures) {
                answers.add(f.get(5, TimeUnit.MINUTES));
            }
            return answers;
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

    /** The bytes the calling thread allocates per {@code call}, counted after {@code warmUp} calls (the JIT's). */
    private static long bytesPerCall(int warmUp, int calls, Runnable call) {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < warmUp; i++) {
            call.run();
        }
        long me = Thread.currentThread().threadId();
        long before = threads.getThreadAllocatedBytes(me);
        for (int i = 0; i < calls; i++) {
            call.run();
        }
        return (threads.getThreadAllocatedBytes(me) - before) / calls;
    }
}
