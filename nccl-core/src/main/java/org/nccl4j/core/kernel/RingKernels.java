package org.nccl4j.core.kernel;

import java.lang.foreign.MemorySegment;

/**
 * NCCL's ring algorithms ({@code src/collectives/device/*.h}) for one channel, any protocol:
 * the step sequences of spec §7.5 over {@link Prims}. {@code ring[k]} is the rank at distance k
 * after this one; blocks are indexed by rank. Counts and offsets are in elements.
 *
 * <p>Each runs with its Simple sends posted in place where they can ({@link Prims#beginInPlace}):
 * none writes bytes it has sent before the next rank has read them. A block is written at most
 * once per call, and the only one written after it was sent, an in-place AllReduce's output
 * chunk, gets its final value back around the ring only after that rank reduced what it read.
 */
public final class RingKernels {
    private RingKernels() {
    }

    /**
     * How a channel splits its share of the data.
     *
     * @param nChannels channels the collective runs on
     * @param bid       this channel's index among them
     * @param chunk     elements per chunk (from the buffer size)
     * @param align     chunks are rounded up to a multiple of this many elements
     * @param interleaved AllReduce places chunk {@code c} of channel {@code bid} at
     *                  {@code c * nChannels + bid} (LL, LL128) rather than {@code bid * nranks + c} (Simple)
     */
    public record Split(int nChannels, int bid, long chunk, long align, boolean interleaved) {
        long realChunk(long remaining, long parts) {
            long c = Math.min(chunk, ceilDiv(remaining, parts));
            return Math.max(align, ceilDiv(c, align) * align);
        }

        /** Offset of AllReduce chunk {@code c} in the loop starting at {@code grid} ({@code calcOffset}). */
        long offset(long grid, int c, int nranks, long real) {
            return interleaved ? grid + ((long) c * nChannels + bid) * real : grid + ((long) bid * nranks + c) * real;
        }
    }

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    private static long clamp(long chunk, long offset, long count) {
        return Math.max(0, Math.min(chunk, count - offset));
    }

    /**
     * AllReduce: reduce-scatter around the ring, then all-gather ({@code RingTwice}).
     *
     * @param p     primitives
     * @param ring  ranks by distance
     * @param in    input
     * @param out   output
     * @param count elements
     * @param ts    element size
     * @param s     split
     */
    public static void allReduce(Prims p, int[] ring, MemorySegment in, MemorySegment out, long count, int ts, Split s) {
        int n = ring.length;
        long loop = (long) n * s.nChannels() * s.chunk();
        for (long grid = 0; grid < count; grid += loop) {
            long real = s.realChunk(count - grid, (long) n * s.nChannels());
            int c = ring[n - 1];
            long off = s.offset(grid, c, n, real);
            p.send(in, off * ts, clamp(real, off, count));
            for (int j = 2; j < n; j++) {
                c = ring[n - j];
                off = s.offset(grid, c, n, real);
                p.recvReduceSend(in, off * ts, clamp(real, off, count));
            }
            c = ring[0];
            off = s.offset(grid, c, n, real);
            p.recvReduceCopySend(in, off * ts, out, off * ts, clamp(real, off, count), true);
            for (int j = 1; j < n - 1; j++) {
                c = ring[n - j];
                off = s.offset(grid, c, n, real);
                p.recvCopySend(out, off * ts, clamp(real, off, count));
            }
            c = ring[1];
            off = s.offset(grid, c, n, real);
            p.recv(out, off * ts, clamp(real, off, count));
        }
    }

    /**
     * AllGather: each rank's block travels once around the ring.
     *
     * @param p       primitives (byte copies)
     * @param ring    ranks by distance
     * @param in      this rank's block
     * @param out     all blocks
     * @param count   bytes per rank
     * @param inPlace whether {@code in} is this rank's block of {@code out}
     * @param s       split (in bytes)
     */
    public static void allGather(Prims p, int[] ring, MemorySegment in, MemorySegment out, long count, boolean inPlace,
                                 Split s) {
        int n = ring.length;
        long loop = (long) s.nChannels() * s.chunk();
        for (long grid = 0; grid < count; grid += loop) {
            long real = s.realChunk(count - grid, s.nChannels());
            long off = grid + s.bid() * real;
            long nelem = clamp(real, off, count);
            int dest = ring[0];
            if (inPlace) {
                p.sendRaw(out, dest * count + off, nelem);
            } else {
                p.copySend(in, off, out, dest * count + off, nelem);
            }
            for (int j = 1; j < n - 1; j++) {
                dest = ring[n - j];
                p.recvCopySend(out, dest * count + off, nelem);
            }
            dest = ring[1];
            p.recv(out, dest * count + off, nelem);
        }
    }

    /**
     * ReduceScatter: block r is reduced around the ring and lands on rank r.
     *
     * @param p     primitives
     * @param ring  ranks by distance
     * @param in    all blocks
     * @param out   this rank's block
     * @param count elements per rank
     * @param ts    element size
     * @param s     split
     */
    public static void reduceScatter(Prims p, int[] ring, MemorySegment in, MemorySegment out, long count, int ts,
                                     Split s) {
        int n = ring.length;
        long loop = (long) s.nChannels() * s.chunk();
        for (long grid = 0; grid < count; grid += loop) {
            long real = s.realChunk(count - grid, s.nChannels());
            long off = grid + s.bid() * real;
            long nelem = clamp(real, off, count);
            int dest = ring[n - 1];
            p.send(in, (dest * count + off) * ts, nelem);
            for (int j = 2; j < n; j++) {
                dest = ring[n - j];
                p.recvReduceSend(in, (dest * count + off) * ts, nelem);
            }
            dest = ring[0];
            p.recvReduceCopy(in, (dest * count + off) * ts, out, off * ts, nelem, true);
        }
    }

    /**
     * Broadcast as a pipeline along the ring from the root.
     *
     * @param p     primitives (byte copies)
     * @param ring  ranks by distance
     * @param root  the root
     * @param in    the root's input
     * @param out   output
     * @param count bytes
     * @param s     split (in bytes)
     */
    public static void broadcast(Prims p, int[] ring, int root, MemorySegment in, MemorySegment out, long count, Split s) {
        int rank = ring[0];
        int next = ring[1];
        boolean inPlace = rank == root && Prims.same(in.asSlice(0, count), out.asSlice(0, count));
        long loop = (long) s.nChannels() * s.chunk();
        for (long grid = 0; grid < count; grid += loop) {
            long real = s.realChunk(count - grid, s.nChannels());
            long off = grid + s.bid() * real;
            long nelem = clamp(real, off, count);
            if (rank == root) {
                if (inPlace) {
                    p.sendRaw(in, off, nelem);
                } else {
                    p.copySend(in, off, out, off, nelem);
                }
            } else if (next == root) {
                p.recv(out, off, nelem);
            } else {
                p.recvCopySend(out, off, nelem);
            }
        }
    }

    /**
     * Reduce as a pipeline along the ring ending at the root.
     *
     * @param p     primitives
     * @param ring  ranks by distance
     * @param root  the root
     * @param in    input
     * @param out   output (root only)
     * @param count elements
     * @param ts    element size
     * @param s     split
     */
    public static void reduce(Prims p, int[] ring, int root, MemorySegment in, MemorySegment out, long count, int ts,
                              Split s) {
        int n = ring.length;
        int rank = ring[0];
        int prev = ring[n - 1];
        long loop = (long) s.nChannels() * s.chunk();
        for (long grid = 0; grid < count; grid += loop) {
            long real = s.realChunk(count - grid, s.nChannels());
            long off = grid + s.bid() * real;
            long nelem = clamp(real, off, count);
            if (prev == root) {
                p.send(in, off * ts, nelem);
            } else if (rank == root) {
                p.recvReduceCopy(in, off * ts, out, off * ts, nelem, true);
            } else {
                p.recvReduceSend(in, off * ts, nelem);
            }
        }
    }
}
