package org.nccl4j.core.reduce;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.nccl4j.DataType;

/** Test inputs (edge and random values as raw bits) and the segments that carry them. */
final class ReduceData {
    private ReduceData() {
    }

    /** Where a test puts its buffers. */
    enum Kind {
        HEAP_BYTES, HEAP_LONGS, NATIVE;

        MemorySegment allocate(Arena arena, long bytes) {
            return switch (this) {
                case HEAP_BYTES -> MemorySegment.ofArray(new byte[(int) bytes]);
                case HEAP_LONGS -> MemorySegment.ofArray(new long[(int) ((bytes + 7) / 8)]);
                case NATIVE -> arena.allocate(bytes, 1);
            };
        }
    }

    static long[] edges(DataType t) {
        return switch (t) {
            case INT8, UINT8 -> new long[] {0, 1, 0xff, 0x7f, 0x80, 2, 0xfe, 0x40, 0x10, 0x81};
            case INT32, UINT32 -> new long[] {0, 1, 0xffffffffL, 0x7fffffffL, 0x80000000L, 0x10000, 46341, 0xfffffffeL,
                0x80000001L};
            case INT64, UINT64 -> new long[] {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 32, 3037000500L, -2,
                Long.MIN_VALUE + 1};
            case FLOAT32 -> new long[] {0x7fc00000L, 0x7f800001L, 0xffc00000L, 0x7f800000L, 0xff800000L, 0, 0x80000000L,
                1, 0x80000001L, 0x00800000L, 0x7f7fffffL, 0xff7fffffL, 0x3f800000L, 0xbf800000L, 0x3f000000L,
                0x4b800000L, 0x3f800001L, 0x33800000L};
            case FLOAT64 -> new long[] {0x7ff8000000000000L, 0x7ff0000000000001L, 0xfff8000000000000L,
                0x7ff0000000000000L, 0xfff0000000000000L, 0, 0x8000000000000000L, 1, 0x8000000000000001L,
                0x0010000000000000L, 0x7fefffffffffffffL, 0xffefffffffffffffL, 0x3ff0000000000000L,
                0xbff0000000000000L, 0x4340000000000000L, 0x3ff0000000000001L, 0x3ca0000000000000L};
            // 2048 + 1 and 2050 + 1 are ties at half's precision; 65504 + 16 is a tie that goes to inf.
            case FLOAT16 -> new long[] {0x7e00, 0x7c01, 0xfe00, 0x7c00, 0xfc00, 0, 0x8000, 1, 0x8001, 0x0400, 0x03ff,
                0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x6800, 0x6801, 0x3c01, 0x4c00, 0x3555, 0x1400};
            // 256 + 1 and 258 + 1 are ties at bfloat16's precision.
            case BFLOAT16 -> new long[] {0x7fc0, 0x7f81, 0xffc0, 0x7f80, 0xff80, 0, 0x8000, 1, 0x8001, 0x0080, 0x007f,
                0x7f7f, 0xff7f, 0x3f80, 0xbf80, 0x4380, 0x4381, 0x3f81, 0x3eab, 0x7f00, 0x0100};
        };
    }

    /** A mix of edge values, raw random bits and small or moderate numbers that round and cancel. */
    static long[] values(DataType t, int n, Random rnd) {
        long[] edges = edges(t);
        long mask = ReduceReference.mask(t);
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            int kind = rnd.nextInt(8);
            if (kind < 2) {
                v[i] = edges[rnd.nextInt(edges.length)];
            } else if (kind < 5) {
                v[i] = rnd.nextLong() & mask;
            } else {
                v[i] = moderate(t, rnd) & mask;
            }
        }
        return v;
    }

    private static long moderate(DataType t, Random rnd) {
        return switch (t) {
            case INT8, UINT8, INT32, UINT32, INT64, UINT64 -> rnd.nextInt(33) - 16;
            case FLOAT32 -> Float.floatToRawIntBits((rnd.nextInt(1 << 26) - (1 << 25)) / 64f);
            case FLOAT64 -> Double.doubleToRawLongBits((rnd.nextLong(1L << 55) - (1L << 54)) / 64.0);
            case FLOAT16 -> Float.floatToFloat16(rnd.nextInt(8193) - 4096);
            case BFLOAT16 -> Float.floatToRawIntBits(rnd.nextInt(2049) - 1024) >>> 16;
        };
    }

    static void write(MemorySegment s, long off, DataType t, long[] v) {
        for (int i = 0; i < v.length; i++) {
            long o = off + (long) i * t.size();
            switch (t.size()) {
                case 1 -> s.set(ValueLayout.JAVA_BYTE, o, (byte) v[i]);
                case 2 -> s.set(ValueLayout.JAVA_SHORT_UNALIGNED, o, (short) v[i]);
                case 4 -> s.set(ValueLayout.JAVA_INT_UNALIGNED, o, (int) v[i]);
                default -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, o, v[i]);
            }
        }
    }

    static long read(MemorySegment s, long off, DataType t, int i) {
        long o = off + (long) i * t.size();
        return switch (t.size()) {
            case 1 -> s.get(ValueLayout.JAVA_BYTE, o) & 0xffL;
            case 2 -> s.get(ValueLayout.JAVA_SHORT_UNALIGNED, o) & 0xffffL;
            case 4 -> s.get(ValueLayout.JAVA_INT_UNALIGNED, o) & 0xffffffffL;
            default -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, o);
        };
    }
}
