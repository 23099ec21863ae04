package org.nccl4j.core.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/** AVG's pre- and post-ops (NCCL 2.10.3's FuncAvg), alone and as a ring applies them. */
class ReducerAvgTest {
    static Stream<Arguments> cases() {
        List<Arguments> list = new ArrayList<>();
        for (DataType t : DataType.values()) {
            for (int nranks : new int[] {1, 3, 4}) {
                list.add(Arguments.of(t, nranks));
            }
        }
        return list.stream();
    }

    @ParameterizedTest(name = "{0} nranks={1}")
    @MethodSource("cases")
    void avgMatchesReference(DataType t, int nranks) {
        Reducer r = Reducer.of(t, RedOp.AVG, nranks);
        boolean integer = ReduceReference.isInteger(t);
        assertEquals(!integer, r.hasPreOp(), r + " pre-op");
        assertEquals(integer, r.hasPostOp(), r + " post-op");
        int sz = t.size();
        for (int n : ReducerTest.SIZES) {
            Random rnd = new Random(77L * t.ordinal() + 7L * nranks + n);
            long[][] in = new long[nranks][];
            for (int j = 0; j < nranks; j++) {
                in[j] = ReduceData.values(t, n, rnd);
            }
            for (ReduceData.Kind kind : ReduceData.Kind.values()) {
                String where = r + " n=" + n + " " + kind;
                try (Arena arena = Arena.ofConfined()) {
                    // Pre-op out of place, then in place.
                    MemorySegment src = kind.allocate(arena, 3 + (long) n * sz);
                    MemorySegment dst = kind.allocate(arena, 1 + (long) n * sz);
                    ReduceData.write(src, 3, t, in[0]);
                    r.preOp(src, 3, dst, 1, n);
                    expect(t, where + " preOp", in[0], dst, 1, x -> ReduceReference.pre(t, nranks, x));
                    r.preOp(src, 3, src, 3, n);
                    expect(t, where + " preOp in place", in[0], src, 3, x -> ReduceReference.pre(t, nranks, x));

                    // Post-op in place.
                    ReduceData.write(src, 3, t, in[1 % nranks]);
                    r.postOp(src, 3, n);
                    expect(t, where + " postOp", in[1 % nranks], src, 3, x -> ReduceReference.post(t, nranks, x));

                    // The whole AVG as a ring runs it: each rank's input pre-op'd, summed, post-op'd.
                    MemorySegment acc = kind.allocate(arena, 5 + (long) n * sz);
                    MemorySegment tmp = kind.allocate(arena, 2 + (long) n * sz);
                    ReduceData.write(tmp, 2, t, in[0]);
                    r.preOp(tmp, 2, acc, 5, n);
                    for (int j = 1; j < nranks; j++) {
                        ReduceData.write(tmp, 2, t, in[j]);
                        r.preOp(tmp, 2, tmp, 2, n);
                        r.reduce(acc, 5, tmp, 2, acc, 5, n);
                    }
                    r.postOp(acc, 5, n);
                    long[] want = new long[n];
                    for (int i = 0; i < n; i++) {
                        long v = ReduceReference.pre(t, nranks, in[0][i]);
                        for (int j = 1; j < nranks; j++) {
                            v = ReduceReference.reduce(t, RedOp.SUM, v, ReduceReference.pre(t, nranks, in[j][i]));
                        }
                        want[i] = ReduceReference.post(t, nranks, v);
                    }
                    expect(t, where + " ring", want, acc, 5, x -> x);
                }
            }
        }
    }

    /**
     * The fused pass the kernels run on a rank's own input ({@code a OP pre(b)}) against the
     * reference: out of place, in place on {@code b} (an in-place AllReduce's input) and on
     * {@code a}; and SUM, which has no pre-op, as a plain reduction.
     */
    @ParameterizedTest(name = "{0} nranks={1}")
    @MethodSource("cases")
    void reducePreOpMatchesReference(DataType t, int nranks) {
        for (RedOp op : new RedOp[] {RedOp.AVG, RedOp.SUM}) {
            Reducer r = Reducer.of(t, op, nranks);
            boolean pre = op == RedOp.AVG && !ReduceReference.isInteger(t);
            int sz = t.size();
            for (int n : ReducerTest.SIZES) {
                Random rnd = new Random(31L * t.ordinal() + 5L * nranks + n);
                long[] a = ReduceData.values(t, n, rnd);
                long[] b = ReduceData.values(t, n, rnd);
                long[] want = new long[n];
                for (int i = 0; i < n; i++) {
                    want[i] = ReduceReference.reduce(t, RedOp.SUM, a[i], pre ? ReduceReference.pre(t, nranks, b[i]) : b[i]);
                }
                for (ReduceData.Kind kind : ReduceData.Kind.values()) {
                    String where = r + " n=" + n + " " + kind;
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment sa = kind.allocate(arena, 3 + (long) n * sz);
                        MemorySegment sb = kind.allocate(arena, 1 + (long) n * sz);
                        MemorySegment sd = kind.allocate(arena, 2 + (long) n * sz);
                        ReduceData.write(sa, 3, t, a);
                        ReduceData.write(sb, 1, t, b);
                        r.reducePreOp(sa, 3, sb, 1, sd, 2, n);
                        expect(t, where + " reducePreOp", want, sd, 2, x -> x);
                        r.reducePreOp(sa, 3, sb, 1, sb, 1, n);
                        expect(t, where + " reducePreOp into b", want, sb, 1, x -> x);
                        ReduceData.write(sb, 1, t, b);
                        r.reducePreOp(sa, 3, sb, 1, sa, 3, n);
                        expect(t, where + " reducePreOp into a", want, sa, 3, x -> x);
                    }
                }
            }
        }
    }

    private static void expect(DataType t, String where, long[] in, MemorySegment s, long off,
            java.util.function.LongUnaryOperator f) {
        for (int i = 0; i < in.length; i++) {
            long want = f.applyAsLong(in[i]);
            long got = ReduceData.read(s, off, t, i);
            if (!ReduceReference.same(t, want, got)) {
                fail(String.format("%s: element %d: f(%s) = %s, got %s", where, i, ReducerTest.hex(t, in[i]),
                        ReducerTest.hex(t, want), ReducerTest.hex(t, got)));
            }
        }
    }

    @Test
    void otherOpsHaveIdentityPreAndPostOps() {
        for (DataType t : DataType.values()) {
            for (RedOp op : new RedOp[] {RedOp.SUM, RedOp.PROD, RedOp.MAX, RedOp.MIN}) {
                Reducer r = Reducer.of(t, op, 4);
                assertFalse(r.hasPreOp(), r.toString());
                assertFalse(r.hasPostOp(), r.toString());
                long[] v = ReduceData.values(t, 100, new Random(5));
                MemorySegment src = MemorySegment.ofArray(new byte[1 + 100 * t.size()]);
                MemorySegment dst = MemorySegment.ofArray(new byte[3 + 100 * t.size()]);
                ReduceData.write(src, 1, t, v);
                r.preOp(src, 1, dst, 3, 100);
                r.postOp(dst, 3, 100);
                expect(t, r + " identity", v, dst, 3, x -> x);
            }
        }
    }

    /** A few averages worked by hand, so the semantics can be read off the test. */
    @Test
    void workedExamples() {
        // Integers: sum, then C's truncating division (toward zero; unsigned for unsigned types).
        assertEquals(2, avg(DataType.INT32, 1, 2, 4));
        assertEquals(-2, (int) avg(DataType.INT32, -7, 0, 0));
        assertEquals(0x55555555L, avg(DataType.UINT32, 0xffffffffL, 0, 0));
        assertEquals(0xff, avg(DataType.INT8, 0xfb, 0, 0)); // int8: -5 / 3 = -1
        // The sum wraps before the division: 255 + 255 = 254 (mod 256), / 3 = 84.
        assertEquals(84, avg(DataType.UINT8, 0xff, 0xff, 0));
        // Floating types scale each rank's value by the rounded 1/n first, then sum: no post-op.
        // 1/3f = 0x3eaaaaab; 1*r + 2*r rounds to 1.0, 3*r rounds to 1.0, so the average is 2.0.
        assertEquals(Float.floatToRawIntBits(2.0f),
                (int) avg(DataType.FLOAT32, Float.floatToRawIntBits(1f), Float.floatToRawIntBits(2f),
                        Float.floatToRawIntBits(3f)));
        // half scales by half(1/3f) = 0x3555 (0.33325195...), so 3 of them add up to 1 - 2^-12,
        // a tie between 0x3bff and 0x3c00 that rounds to even: exactly 1.0.
        assertEquals(0x3c00, avg(DataType.FLOAT16, 0x3c00, 0x3c00, 0x3c00));
    }

    private static long avg(DataType t, long... ranks) {
        Reducer r = Reducer.of(t, RedOp.AVG, ranks.length);
        int sz = t.size();
        MemorySegment acc = MemorySegment.ofArray(new byte[sz]);
        MemorySegment tmp = MemorySegment.ofArray(new byte[sz]);
        ReduceData.write(tmp, 0, t, new long[] {ranks[0]});
        r.preOp(tmp, 0, acc, 0, 1);
        for (int j = 1; j < ranks.length; j++) {
            ReduceData.write(tmp, 0, t, new long[] {ranks[j]});
            r.preOp(tmp, 0, tmp, 0, 1);
            r.reduce(acc, 0, tmp, 0, acc, 0, 1);
        }
        r.postOp(acc, 0, 1);
        return ReduceData.read(acc, 0, t, 0);
    }
}
