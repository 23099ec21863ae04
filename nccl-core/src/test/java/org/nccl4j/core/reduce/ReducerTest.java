package org.nccl4j.core.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.nccl4j.DataType;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;

/** Every DataType x RedOp against {@link ReduceReference}. */
class ReducerTest {
    static final int[] SIZES = {0, 1, 7, 33, 1000, 4097};
    private static final byte GUARD = 0x5a;

    enum Alias { NONE, DST_IS_A, DST_IS_B }

    static Stream<Arguments> cases() {
        List<Arguments> list = new ArrayList<>();
        for (DataType t : DataType.values()) {
            for (RedOp op : RedOp.values()) {
                list.add(Arguments.of(t, op));
            }
        }
        return list.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void randomAndEdgeValues(DataType t, RedOp op) {
        Reducer r = Reducer.of(t, op, 3);
        for (int n : SIZES) {
            Random rnd = new Random(1000L * t.ordinal() + 10L * op.ordinal() + n);
            check(r, t, op, ReduceData.values(t, n, rnd), ReduceData.values(t, n, rnd), "n=" + n);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void everyPairOfEdgeValues(DataType t, RedOp op) {
        long[] e = ReduceData.edges(t);
        long[] x = new long[e.length * e.length];
        long[] y = new long[x.length];
        for (int i = 0; i < e.length; i++) {
            for (int j = 0; j < e.length; j++) {
                x[i * e.length + j] = e[i];
                y[i * e.length + j] = e[j];
            }
        }
        check(Reducer.of(t, op, 3), t, op, x, y, "edge pairs");
    }

    /**
     * Counts of {@link BaseReducer#SMALL_COUNT} and fewer take an element-by-element path in
     * float32 (the other types reduce every count in chunks, which the tests above cover): every
     * count up to one past it, over every pair of edge values (NaN, signed zeros, infinities,
     * ...), in slices of that count.
     */
    @ParameterizedTest(name = "FLOAT32 {0}")
    @EnumSource(RedOp.class)
    void smallCountsOverEdgePairs(RedOp op) {
        DataType t = DataType.FLOAT32;
        long[] e = ReduceData.edges(t);
        Reducer r = Reducer.of(t, op, 3);
        for (int n = 1; n <= BaseReducer.SMALL_COUNT + 1; n++) {
            long[] x = new long[n];
            long[] y = new long[n];
            for (int p = 0; p + n <= e.length * e.length; p += n) {
                for (int i = 0; i < n; i++) {
                    x[i] = e[(p + i) / e.length];
                    y[i] = e[(p + i) % e.length];
                }
                check(r, t, op, x, y, "n=" + n + " edge pairs from " + p);
            }
        }
    }

    /** Runs r over x and y in every segment kind and aliasing, at offsets no element size divides. */
    static void check(Reducer r, DataType t, RedOp op, long[] x, long[] y, String what) {
        int n = x.length;
        long[] expected = new long[n];
        for (int i = 0; i < n; i++) {
            expected[i] = ReduceReference.reduce(t, op, x[i], y[i]);
        }
        int sz = t.size();
        long bytes = (long) n * sz;
        long aOff = 3;
        long bOff = 5 + sz;
        long dOff = 1;
        for (ReduceData.Kind kind : ReduceData.Kind.values()) {
            for (Alias alias : Alias.values()) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment a = kind.allocate(arena, aOff + bytes + 8);
                    MemorySegment b = kind.allocate(arena, bOff + bytes + 8);
                    MemorySegment d = kind.allocate(arena, dOff + bytes + 8);
                    d.fill(GUARD);
                    ReduceData.write(a, aOff, t, x);
                    ReduceData.write(b, bOff, t, y);
                    MemorySegment dst = switch (alias) {
                        case NONE -> d;
                        case DST_IS_A -> a;
                        case DST_IS_B -> b;
                    };
                    long dO = switch (alias) {
                        case NONE -> dOff;
                        case DST_IS_A -> aOff;
                        case DST_IS_B -> bOff;
                    };
                    r.reduce(a, aOff, b, bOff, dst, dO, n);
                    String where = r + " " + what + " " + kind + " " + alias;
                    for (int i = 0; i < n; i++) {
                        long got = ReduceData.read(dst, dO, t, i);
                        if (!ReduceReference.same(t, expected[i], got)) {
                            fail(String.format("%s: element %d: %s %s %s = %s, got %s", where, i, hex(t, x[i]), op,
                                    hex(t, y[i]), hex(t, expected[i]), hex(t, got)));
                        }
                    }
                    if (alias == Alias.NONE) {
                        for (int i = 0; i < n; i++) {
                            assertEquals(x[i], ReduceData.read(a, aOff, t, i), where + ": input a changed");
                            assertEquals(y[i], ReduceData.read(b, bOff, t, i), where + ": input b changed");
                        }
                        for (long o = 0; o < d.byteSize(); o++) {
                            if (o < dOff || o >= dOff + bytes) {
                                assertEquals(GUARD, d.get(ValueLayout.JAVA_BYTE, o), where + ": wrote outside at " + o);
                            }
                        }
                    }
                }
            }
        }
    }

    static String hex(DataType t, long v) {
        return String.format("0x%0" + (2 * t.size()) + "x", v & ReduceReference.mask(t));
    }

    @Test
    void badArgumentsAreInvalidArgument() {
        NcclException e = assertThrows(NcclException.class, () -> Reducer.of(null, RedOp.SUM, 1));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        e = assertThrows(NcclException.class, () -> Reducer.of(DataType.FLOAT32, null, 1));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        e = assertThrows(NcclException.class, () -> Reducer.of(DataType.INT32, RedOp.AVG, 0));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        Reducer.of(DataType.INT32, RedOp.SUM, 0); // nranks matters to AVG only
        MemorySegment s = MemorySegment.ofArray(new byte[64]);
        Reducer r = Reducer.of(DataType.FLOAT32, RedOp.SUM, 1);
        e = assertThrows(NcclException.class, () -> r.reduce(s, 0, s, 0, s, 0, -1));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        // 17 floats do not fit in 64 bytes: the segment's bounds check, not a stray write.
        assertThrows(IndexOutOfBoundsException.class, () -> r.reduce(s, 0, s, 0, s, 0, 17));
        assertThrows(IndexOutOfBoundsException.class, () -> r.reduce(s, 4, s, 0, s, 0, 16));
    }

    /** The kernels work a chunk at a time; a range that does not fit must fail before the first one is written. */
    @Test
    void aRangeThatDoesNotFitLeavesTheDestinationAsItWas() {
        int n = 3 * 1024 + 5;
        MemorySegment a = MemorySegment.ofArray(new float[n]).fill((byte) 1);
        MemorySegment shortDst = MemorySegment.ofArray(new float[n - 1]).fill(GUARD);
        for (RedOp op : RedOp.values()) {
            Reducer r = Reducer.of(DataType.FLOAT32, op, 2);
            assertThrows(IndexOutOfBoundsException.class, () -> r.reduce(a, 0, a, 0, shortDst, 0, n));
            if (r.hasPreOp()) {
                assertThrows(IndexOutOfBoundsException.class, () -> r.preOp(a, 0, shortDst, 0, n));
            }
        }
        Reducer avg = Reducer.of(DataType.INT32, RedOp.AVG, 2);
        assertThrows(IndexOutOfBoundsException.class, () -> avg.postOp(shortDst, 0, n));
        for (long i = 0; i < shortDst.byteSize(); i++) {
            if (shortDst.get(ValueLayout.JAVA_BYTE, i) != GUARD) {
                fail("byte " + i + " of the destination was written");
            }
        }
    }
}
