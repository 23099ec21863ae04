package org.nccl4j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;
import org.nccl4j.core.reduce.Reducer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One reduction kernel call, {@code dst = a OP b} over {@code bytes} of each operand in native
 * segments, with the kernel {@link Reducer#of} gives. Payload
 * GB/s = bytes x ops/s; memory traffic is three times that.
 *
 * <pre>
 * java -jar nccl-bench/target/benchmarks.jar ReduceBench
 * java -jar nccl-bench/target/benchmarks.jar ReduceBench -p bytes=1048576 -p kernel=FLOAT64:MAX,INT8:SUM
 * java -jar nccl-bench/target/benchmarks.jar 'ReduceBench.(reducePreOp|preOpThenReduce)' -p kernel=FLOAT32:AVG
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ReduceBench {
    /** Bytes per operand. */
    @Param({"65536", "1048576", "16777216"})
    public int bytes;

    /** TYPE:OP, e.g. FLOAT32:SUM. */
    @Param({"FLOAT32:SUM", "INT32:SUM", "FLOAT16:SUM"})
    public String kernel;

    private Arena arena;
    private MemorySegment a;
    private MemorySegment b;
    private MemorySegment d;
    private long n;
    private Reducer reducer;

    /** Allocates 64-byte aligned operands filled with ordinary values (no NaN, no subnormal). */
    @Setup(Level.Trial)
    public void setup() {
        String[] k = kernel.split(":");
        DataType type = DataType.valueOf(k[0]);
        RedOp op = RedOp.valueOf(k[1]);
        reducer = Reducer.of(type, op, 8);
        n = bytes / type.size();
        arena = Arena.ofShared();
        a = arena.allocate(bytes, 64);
        b = arena.allocate(bytes, 64);
        d = arena.allocate(bytes, 64);
        SplittableRandom rnd = new SplittableRandom(7);
        for (long i = 0; i < n; i++) {
            fill(a, type, i, rnd);
            fill(b, type, i, rnd);
        }
    }

    private static void fill(MemorySegment s, DataType t, long i, SplittableRandom rnd) {
        float v = (float) rnd.nextDouble(-1000, 1000);
        long o = i * t.size();
        switch (t) {
            case FLOAT32 -> s.set(ValueLayout.JAVA_FLOAT, o, v);
            case FLOAT64 -> s.set(ValueLayout.JAVA_DOUBLE, o, v);
            case FLOAT16 -> s.set(ValueLayout.JAVA_SHORT, o, Float.floatToFloat16(v));
            case BFLOAT16 -> s.set(ValueLayout.JAVA_SHORT, o, (short) (Float.floatToRawIntBits(v) >>> 16));
            case INT8, UINT8 -> s.set(ValueLayout.JAVA_BYTE, o, (byte) rnd.nextInt());
            case INT32, UINT32 -> s.set(ValueLayout.JAVA_INT, o, rnd.nextInt());
            case INT64, UINT64 -> s.set(ValueLayout.JAVA_LONG, o, rnd.nextLong());
        }
    }

    /** Frees the operands. */
    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** One kernel call over the whole buffer. */
    @Benchmark
    public void reduce() {
        reducer.reduce(a, 0, b, 0, d, 0, n);
    }

    /**
     * A rank's own input reduced with a peer's, its pre-op (AVG's scaling) in the same pass:
     * {@code -p kernel=FLOAT32:AVG}; compare {@link #preOpThenReduce}.
     */
    @Benchmark
    public void reducePreOp() {
        reducer.reducePreOp(a, 0, b, 0, d, 0, n);
    }

    /** The same result in two passes, as the kernels made it before the fused pass. */
    @Benchmark
    public void preOpThenReduce() {
        reducer.preOp(b, 0, d, 0, n);
        reducer.reduce(a, 0, d, 0, d, 0, n);
    }
}
