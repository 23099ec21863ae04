package org.nccl4j.examples.perf;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.nccl4j.Communicator;
import org.nccl4j.DataType;
import org.nccl4j.Device;
import org.nccl4j.RedOp;
import org.nccl4j.Stream;
import org.nccl4j.core.comm.CoreCommunicator;
import org.nccl4j.core.op.CollOp;
import org.nccl4j.core.host.HostIdentity;

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
 */
public final class PerfRank implements AutoCloseable {
    private static final int LINE_BYTES = 256;

    private final Communicator comm;
    private final PerfSettings s;
    private final PrintStream out;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment send;
    private final MemorySegment recv;
    private final MemorySegment scalar;
    private final Stream stream;
    private final int rank;
    private final int nranks;
    private int rep;
    private long errors;
    private double bwSum;
    private int bwCount;

    /**
     * Allocates the buffers (twice {@code maxBytes}) and a stream.
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
        this.send = arena.allocate(bytes, 4096);
        this.recv = arena.allocate(bytes, 4096);
        this.scalar = arena.allocate(Math.max(16, (long) LINE_BYTES * nranks), 64);
        this.stream = comm.createStream();
    }

    private static final int JIT_WARMUP_OPS = 30_000;

    /** What the tuning model picks for one call of this size, as {@code Ring/LL/1}. */
    private String algo(ByteCounts c, ElementType type, RedOp op) {
        CollOp.Func func = s.coll().func();
        if (func == null) {
            return "P2P/Simple/1";
        }
        CollOp probe = new CollOp(func, send, recv, c.paramCount(), type.type(), op, s.root());
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
        print(List.of("# algo: the tuning model's algorithm/protocol/channels per size (NCCL_ALGO, NCCL_PROTO restrict it)",
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
     * runs the same fixed number of small operations, so the ranks stay matched.
     */
    private void jitWarmup(ElementType type, RedOp op) {
        if (jitWarmed) {
            return;
        }
        jitWarmed = true;
        ByteCounts small = s.coll().counts(Math.min(s.maxBytes(), 4096) / type.size(), nranks);
        for (int round = 0; round < JIT_WARMUP_OPS / 100; round++) {
            for (int iter = 0; iter < 100; iter++) {
                start(small, type, op, false, 0);
            }
            stream.synchronize();
        }
        // Larger sizes take other paths (vector loops, several slices): compile those too.
        for (long size = s.minBytes(); size <= s.maxBytes(); size = s.next(size)) {
            ByteCounts c = s.coll().counts(size / type.size(), nranks);
            for (int iter = 0; iter < 10; iter++) {
                start(c, type, op, (iter & 1) == 1, iter);
            }
            stream.synchronize();
            if (s.next(size) <= size) {
                break;
            }
        }
    }

    /** nccl-tests' {@code BenchTime} for one size and placement; returns the four printed columns. */
    private String benchTime(TestData data, ByteCounts c, ElementType type, RedOp op, boolean inPlace) {
        boolean check = s.check() > 0 && (!inPlace || s.coll().checksInPlace());
        if (check) {
            data.fill(send, recv, c, inPlace, 99);
        }
        start(c, type, op, inPlace, 0);
        stream.synchronize();
        barrier();

        long t0 = System.nanoTime();
        for (int iter = 0; iter < s.iters(); iter++) {
            start(c, type, op, inPlace, iter);
        }
        stream.synchronize();
        double sec = (System.nanoTime() - t0) / 1e9 / s.iters();
        sec = combineTimes(sec);

        long algBytes = s.coll().algBytes(c.paramCount(), type.size(), nranks);
        double algBw = algBytes / 1e9 / sec;
        double busBw = algBw * s.coll().busFactor(nranks);
        barrier();

        long wrong = -1;
        rep++;
        if (check) {
            for (int i = 0; i < s.check(); i++) {
                data.fill(send, recv, c, inPlace, rep);
                start(c, type, op, inPlace, 0);
                stream.synchronize();
                long local = data.check(recv, c, inPlace, rep);
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

    /** nccl-tests' {@code startColl}: one call at an offset that moves with {@code iter}. */
    private void start(ByteCounts c, ElementType type, RedOp op, boolean inPlace, int iter) {
        long ts = type.size();
        long total = Math.max(c.sendCount(), c.recvCount()) * ts;
        long steps = total == 0 ? 1 : Math.max(1, s.maxBytes() / total);
        long shift = total * (iter % steps);
        MemorySegment r = recv.asSlice(shift);
        MemorySegment in = inPlace ? r.asSlice(c.sendInplaceOffset() * rank * ts) : send.asSlice(shift);
        MemorySegment o = inPlace ? r.asSlice(c.recvInplaceOffset() * rank * ts) : r;
        s.coll().run(comm, in, o, c.paramCount(), type, op, s.root(), stream);
        if (s.blocking()) {
            stream.synchronize();
            barrier();
        }
    }

    /** Combines this rank's time with the others' as {@code -a} says (nccl-tests' {@code Allreduce(.., average)}). */
    private double combineTimes(double sec) {
        scalar.set(ValueLayout.JAVA_DOUBLE, 0, sec);
        switch (s.average()) {
            case 0 -> comm.broadcast(scalar, scalar, 1, DataType.FLOAT64, 0, stream);
            case 2 -> comm.allReduce(scalar, scalar, 1, DataType.FLOAT64, RedOp.MIN, stream);
            case 3 -> comm.allReduce(scalar, scalar, 1, DataType.FLOAT64, RedOp.MAX, stream);
            default -> comm.allReduce(scalar, scalar, 1, DataType.FLOAT64, RedOp.SUM, stream);
        }
        stream.synchronize();
        double v = scalar.get(ValueLayout.JAVA_DOUBLE, 0);
        return s.average() == 1 ? v / nranks : v;
    }

    private long sumOverRanks(long v) {
        scalar.set(ValueLayout.JAVA_LONG, 0, v);
        comm.allReduce(scalar, scalar, 1, DataType.INT64, RedOp.SUM, stream);
        stream.synchronize();
        return scalar.get(ValueLayout.JAVA_LONG, 0);
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
        MemorySegment mine = arena.allocate(LINE_BYTES);
        MemorySegment.copy(bytes, 0, mine, ValueLayout.JAVA_BYTE, 0, Math.min(bytes.length, LINE_BYTES - 1));
        comm.allGather(mine, scalar, LINE_BYTES, DataType.UINT8, stream);
        stream.synchronize();
        List<String> lines = new ArrayList<>();
        for (int r = 0; r < nranks; r++) {
            lines.add(scalar.asSlice((long) r * LINE_BYTES, LINE_BYTES).getString(0, StandardCharsets.UTF_8));
        }
        return lines;
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
        arena.close();
    }
}
