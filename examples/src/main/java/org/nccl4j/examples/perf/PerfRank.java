package org.nccl4j.examples.perf;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.nccl4j.Completion;
import org.nccl4j.Communicator;
import org.nccl4j.DataType;
import org.nccl4j.Device;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.RedOp;
import org.nccl4j.Stream;
import org.nccl4j.core.comm.CoreCommunicator;
import org.nccl4j.core.op.CollOp;
import org.nccl4j.core.host.HostIdentity;
import org.nccl4j.examples.staging.StagedBuffer;

/**
 * What one rank of {@code nccl4j perf} runs: nccl-tests' {@code TimeTest} and {@code BenchTime}
 * over the size sweep, on one communicator, with buffers allocated once at the largest size.
 *
 * <p>Per size and placement (out-of-place, then in-place): one untimed call and a barrier, then
 * {@code iters} calls enqueued back to back on one stream and a single synchronize; the time per
 * call is the elapsed time over {@code iters}, combined over ranks with an AllReduce as
 * {@code -a} says. Then, with {@code -c}, inputs are regenerated, one call runs, and every output
 * element is compared with the locally computed result; the wrong counts are summed over ranks.
 * Only rank 0 prints. Like nccl-tests, each timed call moves to a different offset of the buffers,
 * so consecutive calls do not hit the same cache lines.
 *
 * <p>With {@code --device} the buffers are the communicator's device memory ({@link StagedBuffer}):
 * inputs are generated in host memory and copied in, outputs copied out and checked there, both
 * outside the timed loop; perf's own barriers and time reductions run on device memory too, since
 * a device communicator takes no host memory.
 */
public final class PerfRank implements AutoCloseable {
    private static final int LINE_BYTES = 256;

    private final Communicator comm;
    private final PerfSettings s;
    private final PrintStream out;
    private final Arena arena = Arena.ofShared();
    private final StagedBuffer send;
    private final StagedBuffer recv;
    /** Perf's own small collectives (barrier, times, errors, device lines): {@link #LINE_BYTES} per rank and one more. */
    private final StagedBuffer scalar;
    private final ComputeStep computeStep = new ComputeStep();
    private final SliceCache inSlice = new SliceCache();
    private final SliceCache outSlice = new SliceCache();
    private final Stream stream;
    private final int rank;
    private final int nranks;
    private int rep;
    private long errors;
    private double bwSum;
    private int bwCount;

    /**
     * Allocates the buffers (twice {@code maxBytes}, on the device too with {@code --device}) and a
     * stream of the communicator.
     *
     * @param comm the communicator
     * @param s    what to measure
     * @param out  where to print, on rank 0; {@code null} on the others
     */
    public PerfRank(Communicator comm, PerfSettings s, PrintStream out) {
        this.comm = comm;
        this.s = s;
        this.out = out;
        this.rank = comm.userRank();
        this.nranks = comm.count();
        long bytes = Math.max(s.maxBytes(), 8);
        this.send = StagedBuffer.allocate(comm, s.onDevice(), s.localRegister() == 1, bytes, arena);
        this.recv = StagedBuffer.allocate(comm, s.onDevice(), s.localRegister() == 1, bytes, arena);
        this.scalar = StagedBuffer.allocate(comm, s.onDevice(), false, (long) LINE_BYTES * (nranks + 1), arena);
        this.stream = comm.createStream();
    }

    private static final int JIT_WARMUP_OPS = 30_000;
    /**
     * The warm-up's time bound on device memory, where a call can be slow for reasons the JIT does
     * not change (rank JVMs time-slicing one GPU take ~5 ms a call: 30,000 would be 2.5 minutes).
     */
    private static final long JIT_WARMUP_NANOS = 5_000_000_000L;
    /**
     * The bound on host memory: a run whose calls take under 0.3 ms still makes all 30,000, so
     * its figures stay comparable; slower ones (8 oversubscribed rank JVMs in AllToAlls take ~2 ms
     * a call: a minute) stop here, where the JIT's share of a call no longer shows.
     */
    private static final long HOST_JIT_WARMUP_NANOS = 10_000_000_000L;
    /** The bound for each further algorithm and protocol of the sweep (their sizes may be large). */
    private static final long HOST_PATH_WARMUP_NANOS = 2_000_000_000L;

    /** What the tuning model picks for one call of this size, as {@code Ring/LL/1}. */
    private String algo(ByteCounts c, ElementType type, RedOp op) {
        CollOp.Func func = s.coll().func();
        if (func == null) {
            return "P2P/Simple/1";
        }
        if (s.onDevice()) {
            return "-"; // chosen inside the device backend, which does not report it
        }
        CollOp probe = new CollOp(func, send.host(), recv.host(), c.paramCount(), type.type(), op, s.root());
        CollOp chosen = ((CoreCommunicator) comm).engine().choose(probe);
        if (chosen.algorithm() == null) {
            return "-";
        }
        return chosen.algorithm().ncclName() + "/" + chosen.protocol().ncclName() + "/" + chosen.nChannels();
    }
    private boolean jitWarmed;

    /**
     * Runs the whole test: preamble, device lines, every type and reduction over the sweep, footer.
     *
     * @return 0, or 1 if a check found wrong elements or the bandwidth is under {@code NCCL_TESTS_MIN_BW}
     */
    public int run() {
        List<String> devices = gatherDeviceLines();
        print(PerfReport.preamble(s));
        print(devices);
        print(List.of(s.onDevice() ? "# algo: chosen by the " + comm.device().backend() + " backend per call, not reported (-)"
                : "# algo: the tuning model's algorithm/protocol/channels per size (NCCL_ALGO, NCCL_PROTO restrict it)",
                "#"));
        print(PerfReport.COLUMN_HEADER);
        for (ElementType type : s.types()) {
            if (s.coll().showsRedop()) {
                for (RedOp op : s.ops()) {
                    timeTest(type, op, op.name().toLowerCase(Locale.ROOT));
                }
            } else {
                timeTest(type, RedOp.SUM, "none");
            }
        }
        long allErrors = sumOverRanks(errors);
        double avg = bwCount == 0 ? 0 : bwSum / bwCount;
        String env = System.getenv("NCCL_TESTS_MIN_BW");
        double minBw = env == null ? -1 : Double.parseDouble(env);
        print(PerfReport.footer(allErrors, avg, minBw));
        print(List.of("# Collective test concluded: " + s.coll().program()));
        return allErrors != 0 || (minBw >= 0 && avg < minBw * 0.9) ? 1 : 0;
    }

    /** nccl-tests' {@code TimeTest}: warm-up at the largest and the smallest size, then the sweep. */
    private void timeTest(ElementType type, RedOp op, String opName) {
        TestData data = new TestData(s.coll(), type, op, nranks, rank, s.root());
        barrier();
        jitWarmup(type, op);
        for (long warmSize : new long[] {s.maxBytes(), s.minBytes()}) {
            ByteCounts c = s.coll().counts(warmSize / type.size(), nranks);
            for (int iter = 0; iter < s.warmupIters(); iter++) {
                start(c, type, op, false, iter);
            }
            stream.synchronize();
        }
        for (long size = s.minBytes(); size <= s.maxBytes(); size = s.next(size)) {
            ByteCounts c = s.coll().counts(size / type.size(), nranks);
            int root = s.coll().rooted() ? s.root() : -1;
            String row = PerfReport.rowStart(Math.max(c.sendCount(), c.recvCount()) * type.size(), c.paramCount(),
                    type.testName(), opName, root);
            row += benchTime(data, c, type, op, false);
            row += benchTime(data, c, type, op, true);
            print(List.of(row + "  " + algo(c, type, op)));
            if (s.next(size) <= size) {
                break;
            }
        }
    }

    /**
     * A JVM needs thousands of calls before the JIT has compiled the kernel path; nccl-tests'
     * 5 warm-up iterations would leave the first sizes measuring the interpreter. Every rank
     * runs the same operations, so the ranks stay matched: {@link #JIT_WARMUP_OPS} small ones, or
     * fewer once one rank has used up {@link #JIT_WARMUP_NANOS} (device memory) or
     * {@link #HOST_JIT_WARMUP_NANOS}; on host memory as many again for each other algorithm and
     * protocol the sweep's sizes take (at most {@link #HOST_PATH_WARMUP_NANOS} each).
     */
    private void jitWarmup(ElementType type, RedOp op) {
        if (jitWarmed) {
            return;
        }
        jitWarmed = true;
        ByteCounts small = s.coll().counts(Math.min(s.maxBytes(), 4096) / type.size(), nranks);
        warmUp(small, type, op, s.onDevice() ? JIT_WARMUP_NANOS : HOST_JIT_WARMUP_NANOS);
        // Every size once more: larger ones take other paths (vector loops, several slices), and
        // a size the tuning model gives another algorithm or protocol runs other kernels, which
        // the calls above left cold: those get as long a warm-up, at the sweep's smallest size
        // that takes them (a 1 MiB ring timed after a 4 KiB warm-up that took recursive doubling
        // measured 15-25% slower than after one on the ring).
        Set<String> warmed = new HashSet<>(List.of(path(small, type, op)));
        for (long size = s.minBytes(); size <= s.maxBytes(); size = s.next(size)) {
            ByteCounts c = s.coll().counts(size / type.size(), nranks);
            if (!s.onDevice() && warmed.add(path(c, type, op))) {
                warmUp(c, type, op, HOST_PATH_WARMUP_NANOS);
            }
            for (int iter = 0; iter < 10; iter++) {
                start(c, type, op, (iter & 1) == 1, iter);
            }
            stream.synchronize();
            if (s.next(size) <= size) {
                break;
            }
        }
    }

    /**
     * {@link #JIT_WARMUP_OPS} calls of one size, or fewer once one rank has used up {@code bound}
     * (the ranks agree after each round of 100, by summing their votes).
     */
    private void warmUp(ByteCounts c, ElementType type, RedOp op, long bound) {
        long t0 = System.nanoTime();
        for (int round = 0; round < JIT_WARMUP_OPS / 100; round++) {
            for (int iter = 0; iter < 100; iter++) {
                start(c, type, op, false, 0);
            }
            stream.synchronize();
            if (sumOverRanks(System.nanoTime() - t0 > bound ? 1 : 0) > 0) {
                break;
            }
        }
    }

    /** The algorithm and protocol of a call of this size (the kernels it runs), as {@code Ring/Simple}. */
    private String path(ByteCounts c, ElementType type, RedOp op) {
        String a = algo(c, type, op);
        return a.substring(0, Math.max(a.lastIndexOf('/'), 0));
    }

    /** nccl-tests' {@code BenchTime} for one size and placement; returns the four printed columns. */
    private String benchTime(TestData data, ByteCounts c, ElementType type, RedOp op, boolean inPlace) {
        boolean check = s.check() > 0 && (!inPlace || s.coll().checksInPlace());
        if (check) {
            fill(data, c, type, inPlace, 99);
        }
        start(c, type, op, inPlace, 0);
        stream.synchronize();
        barrier();

        double sec;
        if (s.computeNanos() > 0) {
            sec = afterCompute(c, type, op, inPlace);
        } else {
            long t0 = System.nanoTime();
            for (int iter = 0; iter < s.iters(); iter++) {
                start(c, type, op, inPlace, iter);
            }
            stream.synchronize();
            sec = combineTimes((System.nanoTime() - t0) / 1e9 / s.iters());
        }

        long algBytes = s.coll().algBytes(c.paramCount(), type.size(), nranks);
        double algBw = algBytes / 1e9 / sec;
        double busBw = algBw * s.coll().busFactor(nranks);
        barrier();

        long wrong = -1;
        rep++;
        if (check) {
            for (int i = 0; i < s.check(); i++) {
                fill(data, c, type, inPlace, rep);
                start(c, type, op, inPlace, 0);
                stream.synchronize();
                recv.pull(0, recvRegion(c, inPlace, type.size()));
                long local = data.check(recv.host(), c, inPlace, rep);
                if (local != 0) {
                    errors++;
                }
                wrong = sumOverRanks(local);
                if (wrong != 0) {
                    break;
                }
            }
        }
        bwSum += busBw;
        bwCount++;
        return PerfReport.rowPart(sec * 1e6, algBw, busBw, wrong);
    }

    /**
     * The timed calls of {@code --compute-us}: each after a compute step, as a training loop's
     * AllReduce follows its backward pass. A rank that finishes its step early waits inside the
     * call for the others; the last to arrive waits for nobody, so the least time over ranks is
     * the call's own cost, and the median over calls leaves out the ones a rank lost its core in.
     *
     * @return seconds, the median over calls
     */
    private double afterCompute(ByteCounts c, ElementType type, RedOp op, boolean inPlace) {
        double[] own = new double[s.iters()];
        for (int iter = 0; iter < s.iters(); iter++) {
            computeStep.run(s.computeNanos());
            long t = System.nanoTime();
            start(c, type, op, inPlace, iter);
            own[iter] = System.nanoTime() - t;
        }
        for (int iter = 0; iter < own.length; iter++) {
            own[iter] = minOverRanks(own[iter]);
        }
        Arrays.sort(own);
        return own[own.length / 2] / 1e9;
    }

    private double minOverRanks(double v) {
        scalar.host().set(ValueLayout.JAVA_DOUBLE, 0, v);
        scalarCollective(CollOp.Func.ALL_REDUCE, 1, DataType.FLOAT64, RedOp.MIN, 0, 8);
        return scalar.host().get(ValueLayout.JAVA_DOUBLE, 0);
    }

    /**
     * nccl-tests' {@code initData}: this rank's inputs in host memory, then (with {@code --device})
     * copied to the device buffers; untimed, as nccl-tests fills its buffers outside the timed loop.
     */
    private void fill(TestData data, ByteCounts c, ElementType type, boolean inPlace, int rep) {
        data.fill(send.host(), recv.host(), c, inPlace, rep);
        long ts = type.size();
        recv.push(0, recvRegion(c, inPlace, ts));
        if (!inPlace) {
            send.push(0, c.sendCount() * ts);
        }
    }

    /** The bytes of the receive buffer that {@link TestData#fill} writes and {@link TestData#check} reads. */
    private static long recvRegion(ByteCounts c, boolean inPlace, long typeSize) {
        return Math.max(c.recvCount(), inPlace ? c.sendCount() : 0) * typeSize;
    }

    /** nccl-tests' {@code startColl}: one call at an offset that moves with {@code iter}. */
    private void start(ByteCounts c, ElementType type, RedOp op, boolean inPlace, int iter) {
        long ts = type.size();
        long total = Math.max(c.sendCount(), c.recvCount()) * ts;
        long steps = total == 0 ? 1 : Math.max(1, s.maxBytes() / total);
        long shift = total * (iter % steps);
        long inOff = inPlace ? shift + c.sendInplaceOffset() * rank * ts : shift;
        long outOff = inPlace ? shift + c.recvInplaceOffset() * rank * ts : shift;
        StagedBuffer in = inPlace ? recv : send;
        if (s.onDevice()) {
            DeviceBuffer i = in.device();
            DeviceBuffer o = recv.device();
            Completion done = s.coll().run(comm, i.slice(inOff, i.byteSize() - inOff),
                    o.slice(outOff, o.byteSize() - outOff), c.paramCount(), type, op, s.root(), stream);
            if (s.blocking() == 2) {
                done.await();
            }
        } else if (s.blocking() == 2) {
            s.coll().runBlocking(comm, inSlice.at(in.host(), inOff), outSlice.at(recv.host(), outOff), c.paramCount(),
                    type, op, s.root(), stream);
        } else {
            s.coll().run(comm, inSlice.at(in.host(), inOff), outSlice.at(recv.host(), outOff), c.paramCount(), type,
                    op, s.root(), stream);
        }
        if (s.blocking() == 1) {
            stream.synchronize();
            barrier();
        }
    }

    /** Combines this rank's time with the others' as {@code -a} says (nccl-tests' {@code Allreduce(.., average)}). */
    private double combineTimes(double sec) {
        scalar.host().set(ValueLayout.JAVA_DOUBLE, 0, sec);
        switch (s.average()) {
            case 0 -> scalarCollective(CollOp.Func.BROADCAST, 1, DataType.FLOAT64, null, 0, 8);
            case 2 -> scalarCollective(CollOp.Func.ALL_REDUCE, 1, DataType.FLOAT64, RedOp.MIN, 0, 8);
            case 3 -> scalarCollective(CollOp.Func.ALL_REDUCE, 1, DataType.FLOAT64, RedOp.MAX, 0, 8);
            default -> scalarCollective(CollOp.Func.ALL_REDUCE, 1, DataType.FLOAT64, RedOp.SUM, 0, 8);
        }
        double v = scalar.host().get(ValueLayout.JAVA_DOUBLE, 0);
        return s.average() == 1 ? v / nranks : v;
    }

    private long sumOverRanks(long v) {
        scalar.host().set(ValueLayout.JAVA_LONG, 0, v);
        scalarCollective(CollOp.Func.ALL_REDUCE, 1, DataType.INT64, RedOp.SUM, 0, 8);
        return scalar.host().get(ValueLayout.JAVA_LONG, 0);
    }

    /** A barrier made of a one-element AllReduce: nothing else is shared by every kind of launch. */
    private void barrier() {
        sumOverRanks(0);
    }

    /** Every rank's device line, in rank order, gathered to all (nccl-tests gathers them with MPI). */
    private List<String> gatherDeviceLines() {
        Device d = comm.device();
        String line = PerfReport.deviceLine(rank, ProcessHandle.current().pid(),
                HostIdentity.hostname(), d.index(), d.busId(), d.backend());
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        long mine = (long) LINE_BYTES * nranks; // after the gathered lines
        scalar.host().asSlice(mine, LINE_BYTES).fill((byte) 0);
        MemorySegment.copy(bytes, 0, scalar.host(), ValueLayout.JAVA_BYTE, mine, Math.min(bytes.length, LINE_BYTES - 1));
        scalarCollective(CollOp.Func.ALL_GATHER, LINE_BYTES, DataType.UINT8, null, mine, mine);
        List<String> lines = new ArrayList<>();
        for (int r = 0; r < nranks; r++) {
            lines.add(scalar.host().asSlice((long) r * LINE_BYTES, LINE_BYTES).getString(0, StandardCharsets.UTF_8));
        }
        return lines;
    }

    /**
     * One of perf's own collectives on {@link #scalar}, on the memory the test runs on, waited for:
     * the input is {@code count} elements at {@code inOffset}, the output starts at 0 and is
     * {@code outBytes} long (broadcasts from rank 0).
     */
    private void scalarCollective(CollOp.Func func, long count, DataType type, RedOp op, long inOffset, long outBytes) {
        long inBytes = count * type.size();
        scalar.push(inOffset, inBytes);
        if (s.onDevice()) {
            DeviceBuffer out = scalar.device();
            DeviceBuffer in = out.slice(inOffset, out.byteSize() - inOffset);
            switch (func) {
                case ALL_REDUCE -> comm.allReduce(in, out, count, type, op, stream);
                case BROADCAST -> comm.broadcast(in, out, count, type, 0, stream);
                case ALL_GATHER -> comm.allGather(in, out, count, type, stream);
                default -> throw new IllegalArgumentException(func.toString());
            }
        } else {
            MemorySegment out = scalar.host();
            MemorySegment in = out.asSlice(inOffset);
            switch (func) {
                case ALL_REDUCE -> comm.allReduce(in, out, count, type, op, stream);
                case BROADCAST -> comm.broadcast(in, out, count, type, 0, stream);
                case ALL_GATHER -> comm.allGather(in, out, count, type, stream);
                default -> throw new IllegalArgumentException(func.toString());
            }
        }
        stream.synchronize();
        scalar.pull(0, outBytes);
    }

    private void print(List<String> lines) {
        if (out != null) {
            lines.forEach(out::println);
            out.flush();
        }
    }

    /** Releases the stream and the buffers. */
    @Override
    public void close() {
        stream.close();
        send.close();
        recv.close();
        scalar.close();
        arena.close();
    }
}
