package org.nccl4j.core.device.gpu.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.Completion;
import org.nccl4j.DataType;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;
import org.nccl4j.Stream;

/**
 * Send/Recv, AllToAll and groups of a GPU backend (CUDA, HIP) on ranks sharing this machine's GPU as
 * threads: every received byte equals the sent one (and bytes past the count are untouched),
 * ring exchanges only work because a group's sends and receives run together, grouped AllReduces
 * equal the host backend's byte for byte, a refused group launches nothing, and abort ends a
 * receive that waits for a sender who never comes.
 */
@Tag("gpu")
public abstract class SendRecvGpuSuite extends GpuSuite {
    /** Small FIFO slots (8 KiB) so that prime counts wrap the 8-slot FIFO many times. */
    private static final String BUFFSIZE = "65536";
    private static final long[] COUNTS = {0, 1, 7, 1009, 100_003};
    private static final byte GUARD = (byte) 0x5a;

    protected SendRecvGpuSuite(GpuTarget target) {
        super(target);
    }

    private CommConfig config(String device) {
        return CommConfig.builder().param("NCCL4J_DEVICE", device).param("NCCL4J_SHARED_DEVICE", "1").param(target.deviceParam(), "0")
                .param("NCCL_MIN_NCHANNELS", "2").param("NCCL_MAX_NCHANNELS", "2").param("NCCL_BUFFSIZE", BUFFSIZE)
                .param("NCCL_ALGO", "Ring").param("NCCL_PROTO", "Simple").build();
    }

    private static MemorySegment random(Arena arena, long bytes, long seed) {
        MemorySegment m = arena.allocate(Math.max(1, bytes), 16);
        SplittableRandom rnd = new SplittableRandom(seed);
        for (long i = 0; i < m.byteSize(); i++) {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt());
        }
        return m;
    }

    /** A device buffer of {@code bytes} plus 64 guard bytes, all set to the guard value. */
    private static DeviceBuffer guarded(Communicator c, Arena arena, long bytes) {
        DeviceBuffer b = c.allocate(bytes + 64);
        MemorySegment fill = arena.allocate(bytes + 64);
        fill.fill(GUARD);
        b.copyFrom(fill);
        return b;
    }

    /** Asserts that {@code b} holds {@code expected} and then only guard bytes. */
    private static void assertHolds(String what, DeviceBuffer b, MemorySegment expected, long bytes, Arena arena) {
        MemorySegment got = arena.allocate(bytes + 64);
        b.copyTo(got);
        byte[] e = expected.asSlice(0, bytes).toArray(ValueLayout.JAVA_BYTE);
        byte[] a = got.asSlice(0, bytes).toArray(ValueLayout.JAVA_BYTE);
        int at = Arrays.mismatch(e, a);
        if (at >= 0) {
            throw new AssertionError(what + ": first differing byte " + at + " of " + bytes + ": sent 0x"
                    + Integer.toHexString(e[at] & 0xff) + " received 0x" + Integer.toHexString(a[at] & 0xff));
        }
        for (long i = bytes; i < bytes + 64; i++) {
            assertEquals(GUARD, got.get(ValueLayout.JAVA_BYTE, i), what + ": byte " + i + " past the count was written");
        }
    }

    @Test
    void everyPairSendsAndReceivesEveryCountExactly() {
        for (int n : new int[] {2, 3, 4}) {
            List<Communicator> gpu = Nccl.commInitAll(n, config(target.backend()));
            try {
                int cases = 0;
                for (DataType type : new DataType[] {DataType.UINT8, DataType.FLOAT32}) {
                    for (long count : COUNTS) {
                        for (int from = 0; from < n; from++) {
                            for (int to = 0; to < n; to++) {
                                if (from != to) {
                                    pair(gpu, from, to, count, type, 31L * cases++);
                                }
                            }
                        }
                    }
                }
                // 16 MiB, one pair per rank count: 2048 slots of 8 KiB.
                pair(gpu, 0, n - 1, 4L << 20, DataType.FLOAT32, 7);
                System.out.println(target.backend() + " send/recv, " + n + " ranks on one GPU: " + (cases + 1) + " transfers exact");
            } finally {
                gpu.forEach(Communicator::close);
            }
        }
    }

    /** One send and its receive, each a launch of its own (outside any group), from this one thread. */
    public static void pair(List<Communicator> gpu, int from, int to, long count, DataType type, long seed) {
        try (Arena arena = Arena.ofConfined()) {
            pair(gpu, arena, from, to, count, type, seed);
        }
    }

    private static void pair(List<Communicator> gpu, Arena arena, int from, int to, long count, DataType type,
                             long seed) {
        long bytes = count * type.size();
        MemorySegment data = random(arena, bytes, seed);
        DeviceBuffer src = gpu.get(from).allocate(Math.max(1, bytes));
        src.copyFrom(data.asSlice(0, Math.max(1, bytes)));
        DeviceBuffer dst = guarded(gpu.get(to), arena, bytes);
        Completion s = gpu.get(from).send(src, count, type, to, gpu.get(from).defaultStream());
        Completion r = gpu.get(to).recv(dst, count, type, from, gpu.get(to).defaultStream());
        assertTrue(s.await(Duration.ofSeconds(30)), "send " + from + " -> " + to + " of " + count + " " + type);
        assertTrue(r.await(Duration.ofSeconds(30)), "recv " + from + " -> " + to + " of " + count + " " + type);
        assertHolds("send " + from + " -> " + to + " of " + count + " " + type, dst, data, bytes, arena);
        src.close();
        dst.close();
    }

    @Test
    void ringExchangeInAGroupAndSendsToSelfMoveEveryByte() {
        for (int n : new int[] {2, 3, 4}) {
            List<Communicator> gpu = Nccl.commInitAll(n, config(target.backend()));
            try (Arena arena = Arena.ofShared()) {
                // Far more than the 8 slots of 8 KiB: sends to next block until next receives.
                long count = 100_003;
                long bytes = count * 4;
                List<MemorySegment> data = new ArrayList<>();
                List<DeviceBuffer> src = new ArrayList<>();
                List<DeviceBuffer> fromPrev = new ArrayList<>();
                List<DeviceBuffer> fromSelf = new ArrayList<>();
                for (int r = 0; r < n; r++) {
                    MemorySegment d = random(arena, bytes, 1000 + r);
                    DeviceBuffer b = gpu.get(r).allocate(bytes);
                    b.copyFrom(d);
                    data.add(d);
                    src.add(b);
                    fromPrev.add(guarded(gpu.get(r), arena, bytes));
                    fromSelf.add(guarded(gpu.get(r), arena, bytes));
                }
                for (int round = 0; round < 3; round++) {
                    List<Completion> done = new ArrayList<>();
                    Nccl.groupStart();
                    for (int r = 0; r < n; r++) {
                        Communicator c = gpu.get(r);
                        Stream s = c.defaultStream();
                        done.add(c.send(src.get(r), count, DataType.INT32, (r + 1) % n, s));
                        done.add(c.recv(fromPrev.get(r), count, DataType.INT32, (r + n - 1) % n, s));
                        done.add(c.send(src.get(r), count, DataType.INT32, r, s));
                        done.add(c.recv(fromSelf.get(r), count, DataType.INT32, r, s));
                    }
                    Nccl.groupEnd();
                    done.forEach(d -> assertTrue(d.await(Duration.ofSeconds(30)), "ring exchange of " + n));
                    for (int r = 0; r < n; r++) {
                        assertHolds("round " + round + " rank " + r + " from prev", fromPrev.get(r),
                                data.get((r + n - 1) % n), bytes, arena);
                        assertHolds("round " + round + " rank " + r + " from self", fromSelf.get(r), data.get(r), bytes,
                                arena);
                    }
                }
            } finally {
                gpu.forEach(Communicator::close);
            }
        }
    }

    @Test
    void allToAllIsExact() {
        for (int n : new int[] {2, 3, 4, 8}) {
            List<Communicator> gpu = Nccl.commInitAll(n, config(target.backend()));
            try (Arena arena = Arena.ofShared()) {
                for (long count : new long[] {0, 1, 7, 12_347}) {
                    long block = count * 8;
                    List<MemorySegment> data = new ArrayList<>();
                    List<DeviceBuffer> in = new ArrayList<>();
                    List<DeviceBuffer> out = new ArrayList<>();
                    for (int r = 0; r < n; r++) {
                        MemorySegment d = random(arena, n * block, 77L * r + count);
                        DeviceBuffer b = gpu.get(r).allocate(Math.max(1, n * block));
                        b.copyFrom(d.asSlice(0, Math.max(1, n * block)));
                        data.add(d);
                        in.add(b);
                        out.add(guarded(gpu.get(r), arena, n * block));
                    }
                    List<Completion> done = new ArrayList<>();
                    Nccl.groupStart();
                    for (int r = 0; r < n; r++) {
                        Communicator c = gpu.get(r);
                        done.add(c.allToAll(in.get(r), out.get(r), count, DataType.FLOAT64, c.defaultStream()));
                    }
                    Nccl.groupEnd();
                    done.forEach(d -> assertTrue(d.await(Duration.ofSeconds(30)), "allToAll of " + n));
                    for (int r = 0; r < n; r++) {
                        MemorySegment expected = arena.allocate(Math.max(1, n * block));
                        for (int p = 0; p < n; p++) {
                            MemorySegment.copy(data.get(p), r * block, expected, p * block, block);
                        }
                        assertHolds("allToAll of " + n + " count " + count + " rank " + r, out.get(r), expected,
                                n * block, arena);
                        in.get(r).close();
                        out.get(r).close();
                    }
                }
            } finally {
                gpu.forEach(Communicator::close);
            }
        }
    }

    @Test
    void groupedAllReducesEqualTheHostBackend() {
        long[] counts = {1, 7, 1009, 100_003, 0, 4096, 65_537, 3};
        for (int n : new int[] {2, 4}) {
            List<Communicator> gpu = Nccl.commInitAll(n, config(target.backend()));
            List<Communicator> host = Nccl.commInitAll(n, config("host"));
            try (Arena arena = Arena.ofShared()) {
                List<List<MemorySegment>> hostBufs = new ArrayList<>();
                List<List<DeviceBuffer>> devBufs = new ArrayList<>();
                for (int r = 0; r < n; r++) {
                    List<MemorySegment> hb = new ArrayList<>();
                    List<DeviceBuffer> db = new ArrayList<>();
                    for (int k = 0; k < counts.length; k++) {
                        long bytes = Math.max(1, counts[k] * 4);
                        MemorySegment m = arena.allocate(bytes, 16);
                        SplittableRandom rnd = new SplittableRandom(100L * r + k);
                        for (long i = 0; i < counts[k]; i++) {
                            m.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) (rnd.nextDouble() * 200 - 100));
                        }
                        DeviceBuffer d = gpu.get(r).allocate(bytes);
                        d.copyFrom(m);
                        hb.add(m);
                        db.add(d);
                    }
                    hostBufs.add(hb);
                    devBufs.add(db);
                }
                List<Completion> done = new ArrayList<>();
                Nccl.groupStart();
                for (int r = 0; r < n; r++) {
                    for (int k = 0; k < counts.length; k++) {
                        Communicator g = gpu.get(r);
                        Communicator h = host.get(r);
                        done.add(g.allReduce(devBufs.get(r).get(k), devBufs.get(r).get(k), counts[k], DataType.FLOAT32,
                                RedOp.SUM, g.defaultStream()));
                        done.add(h.allReduce(hostBufs.get(r).get(k), hostBufs.get(r).get(k), counts[k],
                                DataType.FLOAT32, RedOp.SUM, h.defaultStream()));
                    }
                }
                Nccl.groupEnd();
                done.forEach(d -> assertTrue(d.await(Duration.ofSeconds(30)), "grouped allReduces of " + n));
                for (int r = 0; r < n; r++) {
                    for (int k = 0; k < counts.length; k++) {
                        MemorySegment got = arena.allocate(Math.max(1, counts[k] * 4));
                        devBufs.get(r).get(k).copyTo(got);
                        assertEquals(-1, hostBufs.get(r).get(k).mismatch(got), "allReduce " + k + " of count "
                                + counts[k] + ", rank " + r + " of " + n + ": first differing byte");
                    }
                }
            } finally {
                gpu.forEach(Communicator::close);
                host.forEach(Communicator::close);
            }
        }
    }

    @Test
    void aRefusedCallOrMixedStreamsFailTheGroupAndLaunchNothing() throws Exception {
        List<Communicator> gpu = Nccl.commInitAll(2, config(target.backend()));
        try (Arena arena = Arena.ofShared()) {
            MemorySegment ones = arena.allocate(ValueLayout.JAVA_INT, 1000);
            for (int i = 0; i < 1000; i++) {
                ones.setAtIndex(ValueLayout.JAVA_INT, i, 1);
            }
            DeviceBuffer a = gpu.get(0).allocate(4000);
            DeviceBuffer b = gpu.get(1).allocate(4000);
            a.copyFrom(ones);
            b.copyFrom(ones);
            Nccl.groupStart();
            Completion first = gpu.get(0).allReduce(a, a, 1000, DataType.INT32, RedOp.SUM, gpu.get(0).defaultStream());
            Completion recv = gpu.get(0).recv(a, 1000, DataType.INT32, 1, gpu.get(0).defaultStream());
            NcclException bad = assertThrows(NcclException.class,
                    () -> gpu.get(1).send(b, 1000, DataType.INT32, 7, gpu.get(1).defaultStream()));
            assertEquals(Result.INVALID_ARGUMENT, bad.result());
            assertTrue(bad.getMessage().contains("invalid peer 7"), bad.getMessage());
            NcclException end = assertThrows(NcclException.class, Nccl::groupEnd);
            assertSame(bad, end);
            // Had rank 0's AllReduce or receive been launched, it would wait for rank 1 forever.
            assertThrows(NcclException.class, first::await);
            assertThrows(NcclException.class, recv::await);
            gpu.get(0).defaultStream().synchronize();
            MemorySegment got = arena.allocate(ValueLayout.JAVA_INT, 1000);
            a.copyTo(got);
            assertEquals(-1, ones.mismatch(got), "rank 0's buffer was written by a group that failed");

            Stream other = gpu.get(0).createStream();
            Nccl.groupStart();
            gpu.get(0).send(a, 1000, DataType.INT32, 1, gpu.get(0).defaultStream());
            gpu.get(0).recv(a, 1000, DataType.INT32, 1, other);
            gpu.get(1).recv(b, 1000, DataType.INT32, 0, gpu.get(1).defaultStream());
            NcclException mixed = assertThrows(NcclException.class, Nccl::groupEnd);
            assertEquals(Result.INVALID_USAGE, mixed.result());
            assertTrue(mixed.getMessage().contains("mixing different streams") && mixed.getMessage().contains("rank 0"),
                    mixed.getMessage());
            b.copyTo(got);
            assertEquals(-1, ones.mismatch(got), "rank 1's receive ran though its group failed");

            // The thread's group state is clean: the next group runs.
            List<Completion> done = new ArrayList<>();
            Nccl.groupStart();
            done.add(gpu.get(0).allReduce(a, a, 1000, DataType.INT32, RedOp.SUM, gpu.get(0).defaultStream()));
            done.add(gpu.get(1).allReduce(b, b, 1000, DataType.INT32, RedOp.SUM, gpu.get(1).defaultStream()));
            Nccl.groupEnd();
            done.forEach(d -> assertTrue(d.await(Duration.ofSeconds(10))));
            b.copyTo(got);
            for (int i = 0; i < 1000; i++) {
                assertEquals(2, got.getAtIndex(ValueLayout.JAVA_INT, i));
            }
        } finally {
            gpu.forEach(Communicator::close);
        }
    }

    @Test
    void abortWhileARecvWaitsForAMissingSenderReturnsWithinASecond() throws Exception {
        List<Communicator> gpu = Nccl.commInitAll(2, config(target.backend()));
        DeviceBuffer buf = gpu.get(0).allocate(1 << 20);
        Completion c = gpu.get(0).recv(buf, 1 << 18, DataType.FLOAT32, 1, gpu.get(0).defaultStream());
        Thread.sleep(200);
        assertFalse(c.isDone(), "a receive whose sender never sends cannot finish");
        long t0 = System.nanoTime();
        gpu.get(0).abort();
        gpu.get(1).abort();
        NcclException e = assertThrows(NcclException.class, c::await);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 1000, "abort and the receive's end took " + ms + " ms");
        assertTrue(e.getMessage().contains("aborted"), e.getMessage());
    }
}
