package org.nccl4j.core.device.gpu.suite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.nccl4j.CommConfig;
import org.nccl4j.core.device.gpu.GpuRuntime;
import org.nccl4j.core.device.gpu.engine.GpuCollectives;
import org.nccl4j.Communicator;
import org.nccl4j.Completion;
import org.nccl4j.DataType;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;

/**
 * Every collective of a GPU backend (CUDA, HIP), on ranks sharing this machine's GPU as threads, against
 * the host backend running the same collective on the same inputs with the same rings, channels
 * and chunking (Ring and Tree; LL, LL128 and Simple): the bytes of every rank's output must be
 * identical, for every type and reduction, odd and prime counts that span many FIFO slots, in and
 * out of place.
 */
@Tag("gpu")
public abstract class CollectivesGpuSuite extends GpuSuite {
    private static final String CHANNELS = "2";
    /** Small FIFO slots (8 KiB) so that prime counts wrap the 8-slot FIFO many times. */
    private static final String BUFFSIZE = "65536";
    /**
     * The smallest LL and LL128 buffers whose step still holds a whole aligned chunk (4 KiB and
     * 37.5 KiB of data per step): smaller ones would make the ring's chunks overlap.
     */
    private static final String LL_BUFFSIZE = "65536";
    private static final String LL128_BUFFSIZE = "327680";
    private static final long[] COUNTS = {0, 1, 7, 1009, 100_003};

    protected CollectivesGpuSuite(GpuTarget target) {
        super(target);
    }

    private CommConfig config(String device) {
        return config(device, "Ring", "Simple");
    }

    private CommConfig config(String device, String algo, String proto) {
        return CommConfig.builder().param("NCCL4J_DEVICE", device).param("NCCL4J_SHARED_DEVICE", "1").param(target.deviceParam(), "0")
                .param("NCCL_MIN_NCHANNELS", CHANNELS).param("NCCL_MAX_NCHANNELS", CHANNELS)
                .param("NCCL_BUFFSIZE", BUFFSIZE).param("NCCL_LL_BUFFSIZE", LL_BUFFSIZE)
                .param("NCCL_LL128_BUFFSIZE", LL128_BUFFSIZE).param("NCCL_ALGO", algo).param("NCCL_PROTO", proto).build();
    }

    /** The collectives {@link #check} runs. */
    public enum Coll { ALL_REDUCE, BROADCAST, REDUCE, ALL_GATHER, REDUCE_SCATTER }

    @Test
    void everyCollectiveTypeAndOpMatchesTheHostBackendExactly() {
        for (int n : new int[] {1, 2, 3, 4, 8}) {
            List<Communicator> gpu = Nccl.commInitAll(n, config(target.backend()));
            List<Communicator> host = Nccl.commInitAll(n, config("host"));
            try (Arena arena = Arena.ofShared()) {
                int cases = 0;
                boolean full = n == 2 || n == 3;
                for (Coll coll : Coll.values()) {
                    boolean reduces = coll != Coll.BROADCAST && coll != Coll.ALL_GATHER;
                    for (DataType type : DataType.values()) {
                        for (RedOp op : reduces ? RedOp.values() : new RedOp[] {null}) {
                            if (!full && !(type == DataType.FLOAT32 || type == DataType.BFLOAT16 && op == RedOp.AVG
                                    || type == DataType.INT8 && op == RedOp.MAX || type == DataType.UINT64)) {
                                continue;
                            }
                            for (long count : COUNTS) {
                                for (boolean inPlace : new boolean[] {false, true}) {
                                    check(gpu, host, arena, coll, type, op, count, inPlace, n + 7 * cases);
                                    cases++;
                                }
                            }
                        }
                    }
                }
                System.out.println(target.backend() + " collectives, " + n + " rank(s) on one GPU: " + cases
                        + " cases identical to the host backend");
            } finally {
                gpu.forEach(Communicator::close);
                host.forEach(Communicator::close);
            }
        }
    }

    /**
     * LL and LL128 (Ring, every collective) and Tree (AllReduce, every protocol), forced on both
     * backends with NCCL_ALGO/NCCL_PROTO, with small LL and LL128 buffers so that the counts wrap
     * their FIFOs.
     */
    @Test
    void everyProtocolAndAlgorithmMatchesTheHostBackendExactly() {
        String[][] plans = {{"Ring", "LL"}, {"Ring", "LL128"}, {"Tree", "LL"}, {"Tree", "LL128"}, {"Tree", "Simple"}};
        for (String[] plan : plans) {
            boolean tree = plan[0].equals("Tree");
            for (int n : new int[] {2, 3, 4, 8}) {
                List<Communicator> gpu = Nccl.commInitAll(n, config(target.backend(), plan[0], plan[1]));
                List<Communicator> host = Nccl.commInitAll(n, config("host", plan[0], plan[1]));
                try (Arena arena = Arena.ofShared()) {
                    int cases = 0;
                    for (Coll coll : tree ? new Coll[] {Coll.ALL_REDUCE} : Coll.values()) {
                        boolean reduces = coll != Coll.BROADCAST && coll != Coll.ALL_GATHER;
                        boolean full = n == 3 && coll == Coll.ALL_REDUCE || n == 2;
                        for (DataType type : DataType.values()) {
                            for (RedOp op : reduces ? RedOp.values() : new RedOp[] {null}) {
                                if (!full && !(type == DataType.FLOAT32 || type == DataType.BFLOAT16 && op == RedOp.AVG
                                        || type == DataType.INT8 && op == RedOp.MAX || type == DataType.UINT64
                                        || type == DataType.INT32 && op == RedOp.AVG)) {
                                    continue;
                                }
                                for (long count : COUNTS) {
                                    for (boolean inPlace : new boolean[] {false, true}) {
                                        check(gpu, host, arena, coll, type, op, count, inPlace, n + 7 * cases);
                                        cases++;
                                    }
                                }
                            }
                        }
                    }
                    System.out.println(target.backend() + " " + plan[0] + "/" + plan[1] + ", " + n + " rank(s) on one GPU: " + cases
                            + " cases identical to the host backend");
                } finally {
                    gpu.forEach(Communicator::close);
                    host.forEach(Communicator::close);
                }
            }
        }
    }

    @Test
    void largeAllReduceMatchesTheHostBackend() {
        for (int n : new int[] {2, 4, 8}) {
            CommConfig g = CommConfig.builder().param("NCCL4J_DEVICE", target.backend()).param("NCCL4J_SHARED_DEVICE", "1").param(target.deviceParam(), "0")
                    .param("NCCL_MIN_NCHANNELS", CHANNELS).param("NCCL_MAX_NCHANNELS", CHANNELS).build();
            CommConfig h = CommConfig.builder().param("NCCL4J_DEVICE", "host").param("NCCL_MIN_NCHANNELS", CHANNELS)
                    .param("NCCL_MAX_NCHANNELS", CHANNELS).param("NCCL_ALGO", "Ring").param("NCCL_PROTO", "Simple")
                    .build();
            List<Communicator> gpu = Nccl.commInitAll(n, g);
            List<Communicator> host = Nccl.commInitAll(n, h);
            try (Arena arena = Arena.ofShared()) {
                // The GPU runs the tuning model's choice here, the host Ring/Simple: wrapping integer
                // sums are the same in any order.
                check(gpu, host, arena, Coll.ALL_REDUCE, DataType.UINT32, RedOp.SUM, 16L << 20, false, 99);
            } finally {
                gpu.forEach(Communicator::close);
                host.forEach(Communicator::close);
            }
        }
    }

    public static void check(List<Communicator> gpu, List<Communicator> host, Arena arena, Coll coll, DataType type,
                      RedOp op, long count, boolean inPlace, long seed) {
        int n = gpu.size();
        int root = (int) (seed % n);
        long elem = type.size();
        boolean gather = coll == Coll.ALL_GATHER;
        boolean scatter = coll == Coll.REDUCE_SCATTER;
        long inBytes = count * elem * (scatter ? n : 1);
        long outBytes = count * elem * (gather ? n : 1);
        long bufBytes = Math.max(inBytes, outBytes);
        SplittableRandom rnd = new SplittableRandom(seed);
        List<MemorySegment> hostIn = new ArrayList<>();
        List<MemorySegment> hostOut = new ArrayList<>();
        List<DeviceBuffer> devIn = new ArrayList<>();
        List<DeviceBuffer> devOut = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            MemorySegment in = arena.allocate(Math.max(1, bufBytes), 16);
            fill(in, type, rnd);
            MemorySegment out = arena.allocate(Math.max(1, bufBytes), 16);
            out.fill((byte) 0x5a);
            DeviceBuffer di = gpu.get(r).allocate(Math.max(1, bufBytes));
            DeviceBuffer dout = gpu.get(r).allocate(Math.max(1, bufBytes));
            di.copyFrom(in);
            dout.copyFrom(out);
            hostIn.add(in);
            hostOut.add(out);
            devIn.add(di);
            devOut.add(dout);
        }
        List<Completion> done = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            MemorySegment hi = hostIn.get(r);
            MemorySegment ho = inPlace ? hi : hostOut.get(r);
            DeviceBuffer gi = devIn.get(r);
            DeviceBuffer go = inPlace ? gi : devOut.get(r);
            if (inPlace && gather) {
                hi = hostIn.get(r).asSlice(r * count * elem, count * elem);
                gi = devIn.get(r).slice(r * count * elem, count * elem);
            }
            if (inPlace && scatter) {
                ho = hostIn.get(r).asSlice(r * count * elem, count * elem);
                go = devIn.get(r).slice(r * count * elem, count * elem);
            }
            Communicator h = host.get(r);
            Communicator g = gpu.get(r);
            switch (coll) {
                case ALL_REDUCE -> {
                    done.add(h.allReduce(hi, ho, count, type, op, h.defaultStream()));
                    done.add(g.allReduce(gi, go, count, type, op, g.defaultStream()));
                }
                case BROADCAST -> {
                    done.add(h.broadcast(hi, ho, count, type, root, h.defaultStream()));
                    done.add(g.broadcast(gi, go, count, type, root, g.defaultStream()));
                }
                case REDUCE -> {
                    done.add(h.reduce(hi, ho, count, type, op, root, h.defaultStream()));
                    done.add(g.reduce(gi, go, count, type, op, root, g.defaultStream()));
                }
                case ALL_GATHER -> {
                    done.add(h.allGather(hi, inPlace ? hostIn.get(r) : ho, count, type, h.defaultStream()));
                    done.add(g.allGather(gi, inPlace ? devIn.get(r) : go, count, type, g.defaultStream()));
                }
                case REDUCE_SCATTER -> {
                    done.add(h.reduceScatter(hi, ho, count, type, op, h.defaultStream()));
                    done.add(g.reduceScatter(gi, go, count, type, op, g.defaultStream()));
                }
            }
        }
        done.forEach(Completion::await);
        for (int r = 0; r < n; r++) {
            DeviceBuffer result = inPlace ? devIn.get(r) : devOut.get(r);
            MemorySegment expected = inPlace ? hostIn.get(r) : hostOut.get(r);
            MemorySegment got = arena.allocate(Math.max(1, bufBytes), 16);
            result.copyTo(got);
            // Reduce writes on the root only, Broadcast's root keeps its input: compare whole buffers.
            byte[] e = expected.toArray(ValueLayout.JAVA_BYTE);
            byte[] a = got.toArray(ValueLayout.JAVA_BYTE);
            int at = mismatch(e, a, type);
            if (at >= 0) {
                throw new AssertionError(coll + " " + type + " " + op + " count " + count + (inPlace ? " in place" : "")
                        + " nranks " + n + " rank " + r + ": first differing byte " + at + " host 0x"
                        + Integer.toHexString(e[at] & 0xff) + " gpu 0x" + Integer.toHexString(a[at] & 0xff));
            }
            devIn.get(r).close();
            devOut.get(r).close();
        }
    }

    /**
     * @return the first differing byte, or -1. NaNs of float32/float64 compare equal whatever
     *     their payload: a GPU writes the canonical 0x7fffffff where a CPU keeps an operand's
     *     (the 16-bit types are exact: the host backend writes CUDA's canonical NaN for them).
     */
    private static int mismatch(byte[] e, byte[] a, DataType type) {
        int at = java.util.Arrays.mismatch(e, a);
        if (at < 0 || (type != DataType.FLOAT32 && type != DataType.FLOAT64)) {
            return at;
        }
        int size = type.size();
        java.nio.ByteBuffer eb = java.nio.ByteBuffer.wrap(e).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        java.nio.ByteBuffer ab = java.nio.ByteBuffer.wrap(a).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = at / size * size; i + size <= e.length; i += size) {
            boolean same = size == 4
                    ? eb.getInt(i) == ab.getInt(i) || Float.isNaN(eb.getFloat(i)) && Float.isNaN(ab.getFloat(i))
                    : eb.getLong(i) == ab.getLong(i) || Double.isNaN(eb.getDouble(i)) && Double.isNaN(ab.getDouble(i));
            if (!same) {
                return i;
            }
        }
        int tail = e.length / size * size;
        int rest = java.util.Arrays.mismatch(java.util.Arrays.copyOfRange(e, tail, e.length),
                java.util.Arrays.copyOfRange(a, tail, a.length));
        return rest < 0 ? -1 : tail + rest;
    }

    /** Random elements, with the special values (NaN, infinities, -0.0, extremes) every so often. */
    private static void fill(MemorySegment seg, DataType type, SplittableRandom rnd) {
        long n = seg.byteSize() / type.size();
        for (long i = 0; i < n; i++) {
            int special = rnd.nextInt(64);
            switch (type) {
                case FLOAT32 -> seg.setAtIndex(ValueLayout.JAVA_FLOAT, i, special == 0 ? Float.NaN : special == 1
                        ? Float.NEGATIVE_INFINITY : special == 2 ? -0.0f : (float) (rnd.nextDouble() * 200 - 100));
                case FLOAT64 -> seg.setAtIndex(ValueLayout.JAVA_DOUBLE, i, special == 0 ? Double.NaN : special == 1
                        ? Double.POSITIVE_INFINITY : special == 2 ? -0.0 : rnd.nextDouble() * 2e6 - 1e6);
                case FLOAT16, BFLOAT16 -> {
                    short bits = (short) rnd.nextInt(1 << 16);
                    // Mostly finite, moderate values: exponent bits kept away from overflow.
                    if (special > 2) {
                        bits = (short) (bits & (type == DataType.FLOAT16 ? 0xbbff : 0xbfff));
                    }
                    seg.setAtIndex(ValueLayout.JAVA_SHORT, i, bits);
                }
                case INT8, UINT8 -> seg.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt());
                case INT32, UINT32 -> seg.setAtIndex(ValueLayout.JAVA_INT, i, special == 0 ? Integer.MIN_VALUE
                        : rnd.nextInt());
                case INT64, UINT64 -> seg.setAtIndex(ValueLayout.JAVA_LONG, i, special == 0 ? Long.MIN_VALUE
                        : rnd.nextLong());
            }
        }
        long tail = seg.byteSize() % type.size();
        for (long i = seg.byteSize() - tail; i < seg.byteSize(); i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, (byte) 0);
        }
    }

    @Test
    void abortWhileAKernelWaitsForItsPeerReturnsWithinASecondAndTheGpuStaysUsable() throws Exception {
        List<Communicator> gpu = Nccl.commInitAll(2, config(target.backend()));
        DeviceBuffer buf = gpu.get(0).allocate(1 << 20);
        // Only rank 0 calls: its kernel waits for rank 1 forever.
        Completion c = gpu.get(0).allReduce(buf, buf, 1 << 18, DataType.FLOAT32, RedOp.SUM,
                gpu.get(0).defaultStream());
        Thread.sleep(200);
        assertTrue(!c.isDone(), "the lone kernel cannot finish");
        long t0 = System.nanoTime();
        gpu.get(0).abort();
        gpu.get(1).abort();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 1000, "abort took " + ms + " ms");
        NcclException e = assertThrows(NcclException.class, c::await);
        assertTrue(e.getMessage().contains("aborted"), e.getMessage());
        // A new communicator on the same GPU works.
        List<Communicator> again = Nccl.commInitAll(2, config(target.backend()));
        try (Arena arena = Arena.ofConfined()) {
            List<DeviceBuffer> bufs = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                MemorySegment in = arena.allocate(ValueLayout.JAVA_INT, 1000);
                for (int i = 0; i < 1000; i++) {
                    in.setAtIndex(ValueLayout.JAVA_INT, i, i * (r + 1));
                }
                DeviceBuffer b = again.get(r).allocate(4000);
                b.copyFrom(in);
                bufs.add(b);
            }
            List<Completion> done = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                done.add(again.get(r).allReduce(bufs.get(r), bufs.get(r), 1000, DataType.INT32, RedOp.SUM,
                        again.get(r).defaultStream()));
            }
            done.forEach(d -> assertTrue(d.await(Duration.ofSeconds(10))));
            MemorySegment out = arena.allocate(ValueLayout.JAVA_INT, 1000);
            bufs.get(1).copyTo(out);
            for (int i = 0; i < 1000; i++) {
                assertEquals(3 * i, out.getAtIndex(ValueLayout.JAVA_INT, i));
            }
        } finally {
            again.forEach(Communicator::close);
        }
    }

    @Test
    void foreignBuffersAndStreamsAreWrappedAndUsed() throws Exception {
        GpuRuntime ctx = target.runtime().open(0);
        List<Communicator> gpu = Nccl.commInitAll(2, config(target.backend()));
        long[] mem = new long[2];
        long[] streams = new long[2];
        try (Arena arena = Arena.ofConfined()) {
            List<Completion> done = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                // Another library's allocation and stream, as JavaCPP, DJL or PyTorch hand them over.
                mem[r] = ctx.memAlloc(4000);
                streams[r] = ctx.streamCreate();
                MemorySegment in = arena.allocate(ValueLayout.JAVA_INT, 1000);
                for (int i = 0; i < 1000; i++) {
                    in.setAtIndex(ValueLayout.JAVA_INT, i, i + r * 1_000_000);
                }
                ctx.copyHtoD(mem[r], in.address(), 4000, 0);
                Communicator c = gpu.get(r);
                DeviceBuffer b = c.wrap(mem[r], 4000);
                org.nccl4j.Stream s = c.wrapStream(streams[r]);
                assertTrue(s == c.wrapStream(streams[r]), "one wrapper per foreign stream");
                assertEquals(streams[r], s.handle());
                done.add(c.allReduce(b, b, 1000, DataType.INT32, RedOp.MAX, s));
            }
            done.forEach(Completion::await);
            MemorySegment out = arena.allocate(ValueLayout.JAVA_INT, 1000);
            for (int r = 0; r < 2; r++) {
                ctx.copyDtoH(out.address(), mem[r], 4000, 0);
                for (int i = 0; i < 1000; i++) {
                    assertEquals(i + 1_000_000, out.getAtIndex(ValueLayout.JAVA_INT, i), "rank " + r + " element " + i);
                }
            }
        } finally {
            gpu.forEach(Communicator::close);
            for (int r = 0; r < 2; r++) {
                // Still ours after nccl4j let go: freeing them must succeed.
                ctx.streamDestroy(streams[r]);
                ctx.memFree(mem[r]);
            }
        }
    }

    @Test
    void completionsNobodyAwaitsReleaseTheirEvents() {
        List<Communicator> gpu = Nccl.commInitAll(2, config(target.backend()));
        int before = GpuCollectives.liveCompletions();
        try {
            List<DeviceBuffer> bufs = List.of(gpu.get(0).allocate(4096), gpu.get(1).allocate(4096));
            for (int i = 0; i < 5000; i++) {
                for (int r = 0; r < 2; r++) {
                    // The completion is dropped, as a loop that only synchronizes its stream does.
                    gpu.get(r).allReduce(bufs.get(r), bufs.get(r), 1024, DataType.FLOAT32, RedOp.SUM,
                            gpu.get(r).defaultStream());
                }
            }
            gpu.forEach(c -> c.defaultStream().synchronize());
            gpu.get(0).allReduce(bufs.get(0), bufs.get(0), 1024, DataType.FLOAT32, RedOp.SUM,
                    gpu.get(0).defaultStream());
            gpu.get(1).allReduce(bufs.get(1), bufs.get(1), 1024, DataType.FLOAT32, RedOp.SUM,
                    gpu.get(1).defaultStream()).await();
            gpu.get(0).defaultStream().synchronize();
            int live = GpuCollectives.liveCompletions() - before;
            assertTrue(live <= 4, live + " events still held after 5001 finished collectives per rank");
        } finally {
            gpu.forEach(Communicator::close);
        }
    }

    @Test
    void badBuffersAreRefusedAndNothingIsWritten() {
        List<Communicator> gpu = Nccl.commInitAll(1, config(target.backend()));
        Communicator c = gpu.get(0);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment hostMem = arena.allocate(4096, 16);
            NcclException wrap = assertThrows(NcclException.class, () -> c.wrap(hostMem.address(), 4096));
            assertEquals(Result.INVALID_ARGUMENT, wrap.result());
            NcclException seg = assertThrows(NcclException.class,
                    () -> c.allReduce(hostMem, hostMem, 16, DataType.FLOAT32, RedOp.SUM, c.defaultStream()));
            assertEquals(Result.INVALID_ARGUMENT, seg.result());
            DeviceBuffer in = c.allocate(4096);
            DeviceBuffer small = c.allocate(64);
            MemorySegment marker = arena.allocate(64, 16);
            marker.fill((byte) 7);
            small.copyFrom(marker);
            NcclException shortBuf = assertThrows(NcclException.class,
                    () -> c.allReduce(in, small, 1024, DataType.FLOAT32, RedOp.SUM, c.defaultStream()));
            assertEquals(Result.INVALID_ARGUMENT, shortBuf.result());
            assertTrue(shortBuf.getMessage().contains("recvbuff holds 64 bytes but the call needs 4096"),
                    shortBuf.getMessage());
            c.defaultStream().synchronize();
            MemorySegment after = arena.allocate(64, 16);
            small.copyTo(after);
            assertArrayEquals(marker.toArray(ValueLayout.JAVA_BYTE), after.toArray(ValueLayout.JAVA_BYTE));
            in.close();
            small.close();
        } finally {
            gpu.forEach(Communicator::close);
        }
    }
}
