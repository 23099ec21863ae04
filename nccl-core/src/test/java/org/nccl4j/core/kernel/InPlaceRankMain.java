package org.nccl4j.core.kernel;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.nccl4j.Communicator;
import org.nccl4j.DataType;
import org.nccl4j.Nccl;
import org.nccl4j.RedOp;
import org.nccl4j.core.shm.SharedMemory;

/**
 * A rank JVM of {@link InPlaceCollectivesTest}: int32 SUM AllReduces, out of place and in place,
 * between buffers from {@code Nccl.memAlloc} (or from an arena where {@code IN_PLACE_PLAIN}
 * names this rank), each result checked element by element against the sum it must be, each
 * call's input refilled at once after it returns. Prints how many of its peers' allocations it
 * has mapped then (from {@code /proc/self/maps}); then AllGather, ReduceScatter, Broadcast and
 * Reduce the same way, and {@code OK}. {@link ThreadsInPlaceTest} runs the same checks on ranks
 * that are threads of one JVM.
 */
public final class InPlaceRankMain {
    private static final long[] COUNTS = {1, 7, 2048, 65_537, 300_007};
    /** The size of a buffer holding the largest count. */
    static final long BYTES = COUNTS[COUNTS.length - 1] * 4;

    private InPlaceRankMain() {
    }

    public static void main(String[] args) throws IOException {
        try (Communicator c = Nccl.commInitFromEnv(); Arena arena = Arena.ofShared()) {
            int n = c.count();
            boolean plain = String.valueOf(c.userRank()).equals(System.getenv("IN_PLACE_PLAIN"));
            MemorySegment a = plain ? arena.allocate(BYTES, 4096) : Nccl.memAlloc(arena, BYTES);
            MemorySegment b = plain ? arena.allocate(BYTES, 4096) : Nccl.memAlloc(arena, BYTES);
            allReduces(c, a, b);
            System.out.println("PEER_MAPPINGS " + peerMappings(a, b));
            MemorySegment all = plain ? arena.allocate(n * BYTES, 4096) : Nccl.memAlloc(arena, n * BYTES);
            otherCollectives(c, a, b, all);
            System.out.println("OK");
        }
    }

    /**
     * int32 SUM AllReduces of every count, 3 rounds, out of place ({@code a} into {@code b})
     * and in place ({@code b}), each result checked, each input rewritten as soon as the call
     * returns; {@code a} and {@code b} hold {@link #BYTES} each.
     */
    static void allReduces(Communicator c, MemorySegment a, MemorySegment b) {
        int n = c.count();
        int rank = c.userRank();
        for (long count : COUNTS) {
            for (int round = 0; round < 3; round++) {
                fill(a, count, rank, round);
                c.allReduce(a, b, count, DataType.INT32, RedOp.SUM, c.defaultStream()).await();
                // The input is the caller's again: rewritten before the next call.
                fill(a, count, rank, round + 50);
                check(b, 0, count, n, round, "out of place");
                fill(b, count, rank, round + 100);
                c.allReduce(b, b, count, DataType.INT32, RedOp.SUM, c.defaultStream()).await();
                check(b, 0, count, n, round + 100, "in place");
            }
        }
    }

    /**
     * AllGather, ReduceScatter, Broadcast and Reduce of every count, checked the same way;
     * {@code a} and {@code b} hold {@link #BYTES} each, {@code all} {@code c.count()} times that.
     */
    static void otherCollectives(Communicator c, MemorySegment a, MemorySegment b, MemorySegment all) {
        for (long count : COUNTS) {
            otherCollectives(c, a, b, all, count);
        }
    }

    /** AllGather, ReduceScatter, Broadcast and Reduce over the same buffers, out of place and in place. */
    private static void otherCollectives(Communicator c, MemorySegment a, MemorySegment b, MemorySegment all,
                                         long count) {
        int n = c.count();
        int rank = c.userRank();
        fill(a, count, rank, 200);
        c.allGather(a, all, count, DataType.INT32, c.defaultStream()).await();
        fill(a, count, rank, 201);
        MemorySegment own = all.asSlice(rank * count * 4, count * 4);
        for (int r = 0; r < n; r++) {
            expect(all.asSlice(r * count * 4, count * 4), count, r, 200, "allgather");
        }
        fill(own, count, rank, 202);
        c.allGather(own, all, count, DataType.INT32, c.defaultStream()).await();
        for (int r = 0; r < n; r++) {
            expect(all.asSlice(r * count * 4, count * 4), count, r, 202, "allgather in place");
        }
        fill(all, n * count, rank, 300);
        c.reduceScatter(all, b, count, DataType.INT32, RedOp.SUM, c.defaultStream()).await();
        fill(all, n * count, rank, 301);
        check(b, rank * count, count, n, 300, "reducescatter");
        fill(all, n * count, rank, 302);
        c.reduceScatter(all, own, count, DataType.INT32, RedOp.SUM, c.defaultStream()).await();
        check(own, rank * count, count, n, 302, "reducescatter in place");
        int root = (int) (count % n);
        fill(a, count, rank, 400);
        c.broadcast(a, b, count, DataType.INT32, root, c.defaultStream()).await();
        fill(a, count, rank, 401);
        expect(b, count, root, 400, "broadcast");
        fill(b, count, rank, 402);
        c.broadcast(b, b, count, DataType.INT32, root, c.defaultStream()).await();
        expect(b, count, root, 402, "broadcast in place");
        fill(a, count, rank, 500);
        c.reduce(a, b, count, DataType.INT32, RedOp.SUM, root, c.defaultStream()).await();
        fill(a, count, rank, 501);
        if (rank == root) {
            check(b, 0, count, n, 500, "reduce");
        }
    }

    private static void expect(MemorySegment m, long count, int rank, int round, String how) {
        for (long i = 0; i < count; i++) {
            int got = m.getAtIndex(ValueLayout.JAVA_INT, i);
            if (got != value(i, rank, round)) {
                throw new AssertionError(how + " count " + count + " rank " + rank + "'s element " + i + ": " + got
                        + " instead of " + value(i, rank, round));
            }
        }
    }

    private static int value(long i, int rank, int round) {
        return (int) (i * 31 + rank * 1_000_003L + round * 7L);
    }

    private static void fill(MemorySegment m, long count, int rank, int round) {
        for (long i = 0; i < count; i++) {
            m.setAtIndex(ValueLayout.JAVA_INT, i, value(i, rank, round));
        }
    }

    /** Elements {@code [0, count)} of {@code m} are the sums over ranks of their elements {@code base + i}. */
    private static void check(MemorySegment m, long base, long count, int n, int round, String how) {
        for (long i = 0; i < count; i++) {
            int want = 0;
            for (int r = 0; r < n; r++) {
                want += value(base + i, r, round);
            }
            int got = m.getAtIndex(ValueLayout.JAVA_INT, i);
            if (got != want) {
                throw new AssertionError(how + " count " + count + " round " + round + " element " + i + ": " + got
                        + " instead of " + want);
            }
        }
    }

    /** @return memfds of nccl4j mapped here that are not this rank's own buffers */
    private static long peerMappings(MemorySegment... own) throws IOException {
        Set<String> mine = java.util.Arrays.stream(own).map(m -> SharedMemory.find(m, 0, 1))
                .filter(java.util.Objects::nonNull).map(x -> SharedMemory.name(x.id())).collect(Collectors.toSet());
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains("/memfd:nccl4j-"))
                .map(l -> l.substring(l.indexOf("/memfd:") + 7, l.indexOf(" (deleted)"))).filter(x -> !mine.contains(x))
                .distinct().count();
    }
}
