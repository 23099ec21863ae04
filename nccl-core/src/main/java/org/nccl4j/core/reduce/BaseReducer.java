package org.nccl4j.core.reduce;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.IntFunction;
import org.nccl4j.DataType;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;

/**
 * What every kernel shares: its type and op, and the loop that moves the operands through two
 * heap arrays of {@link #CHUNK_BYTES} a thread keeps (bulk copies in and out), where the
 * subclass's plain array loops do the arithmetic. See the package documentation for why.
 */
abstract class BaseReducer implements Reducer {
    /**
     * Bytes per chunk. Measured (float SUM, 2-core VM): 2 KiB and 3 KiB chunks reduced 4M floats
     * as fast as segment loops or faster, 4 KiB and larger ones at 60 % of that (the chunks and
     * the operands then share cache sets 4 KiB apart).
     */
    static final int CHUNK_BYTES = 2048;
    /**
     * Counts up to this many elements go to {@link #reduceSmall} where a type has one (float32,
     * the training loops' type): an 8-byte AllReduce reduces 1-2 elements a step, and the chunks'
     * three bulk copies and thread-local lookup cost 27-35 ns a call however few the elements
     * (JMH {@code ReduceBench}, 2-core VM; the element loop 6 ns at 8 bytes, 19 at 32).
     */
    static final int SMALL_COUNT = 8;

    final DataType type;
    final RedOp op;
    private final ValueLayout layout;
    /** Elements per chunk. */
    private final int chunk;
    /** Per thread, the chunks ({@link #chunksOf}), shared by every kernel of the element type. */
    private final ThreadLocal<Object[]> chunks;

    /**
     * @param layout the element layout
     * @param chunks the subclass's {@link #chunksOf} for the same layout
     */
    BaseReducer(DataType type, RedOp op, ValueLayout layout, ThreadLocal<Object[]> chunks) {
        this.type = type;
        this.op = op;
        this.layout = layout;
        this.chunk = CHUNK_BYTES / (int) layout.byteSize();
        this.chunks = chunks;
    }

    /**
     * A thread's chunks of {@code layout}'s elements, made by {@code newArray}: the two operands
     * and a spare for a result that cannot overwrite them.
     */
    static ThreadLocal<Object[]> chunksOf(IntFunction<Object> newArray, ValueLayout layout) {
        int n = CHUNK_BYTES / (int) layout.byteSize();
        return ThreadLocal.withInitial(() -> new Object[] {newArray.apply(n), newArray.apply(n), newArray.apply(n)});
    }

    /**
     * {@code x[i] OP y[i]} for {@code i < k}, into {@code x} or {@code spare}.
     *
     * @return the chunk that holds the result
     */
    abstract Object combine(Object x, Object y, Object spare, int k);

    /**
     * {@code d = a OP pre?(b)} element by element for a few elements, the ranges checked; the
     * same results as the chunked loop.
     *
     * @return false if this type has no such path (the chunked loop runs instead)
     */
    boolean reduceSmall(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, int n,
                        boolean preB) {
        return false;
    }

    /** The pre-op on {@code x[0..k)} in place; called only when {@link #hasPreOp()}. */
    void pre(Object x, int k) {
        throw new IllegalStateException(this + " has no pre-op");
    }

    /** The post-op on {@code x[0..k)} in place; called only when {@link #hasPostOp()}. */
    void post(Object x, int k) {
        throw new IllegalStateException(this + " has no post-op");
    }

    @Override
    public final void reduce(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n) {
        reduce(a, aOff, b, bOff, d, dOff, n, false);
    }

    @Override
    public final void reducePreOp(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff,
                                  long n) {
        reduce(a, aOff, b, bOff, d, dOff, n, hasPreOp());
    }

    /** {@code d = a OP b}, with {@code b}'s chunks through {@link #pre} first if {@code preB}. */
    private void reduce(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n,
                        boolean preB) {
        long bytes = bytes(n);
        checkRange(a, aOff, bytes);
        checkRange(b, bOff, bytes);
        checkRange(d, dOff, bytes);
        if (n <= SMALL_COUNT && reduceSmall(a, aOff, b, bOff, d, dOff, (int) n, preB)) {
            return;
        }
        Object[] s = chunks.get();
        Object x = s[0];
        Object y = s[1];
        Object spare = s[2];
        for (long done = 0; done < n; ) {
            int k = (int) Math.min(chunk, n - done);
            long o = done * layout.byteSize();
            MemorySegment.copy(a, layout, aOff + o, x, 0, k);
            MemorySegment.copy(b, layout, bOff + o, y, 0, k);
            if (preB) {
                pre(y, k);
            }
            MemorySegment.copy(combine(x, y, spare, k), 0, d, layout, dOff + o, k);
            done += k;
        }
    }

    @Override
    public boolean hasPreOp() {
        return false;
    }

    @Override
    public final void preOp(MemorySegment src, long srcOff, MemorySegment dst, long dOff, long n) {
        long bytes = bytes(n);
        if (!hasPreOp()) {
            MemorySegment.copy(src, srcOff, dst, dOff, bytes);
            return;
        }
        checkRange(src, srcOff, bytes);
        checkRange(dst, dOff, bytes);
        Object x = chunks.get()[0];
        for (long done = 0; done < n; ) {
            int k = (int) Math.min(chunk, n - done);
            long o = done * layout.byteSize();
            MemorySegment.copy(src, layout, srcOff + o, x, 0, k);
            pre(x, k);
            MemorySegment.copy(x, 0, dst, layout, dOff + o, k);
            done += k;
        }
    }

    @Override
    public boolean hasPostOp() {
        return false;
    }

    @Override
    public final void postOp(MemorySegment buf, long off, long n) {
        long bytes = bytes(n);
        if (!hasPostOp()) {
            return;
        }
        checkRange(buf, off, bytes);
        Object x = chunks.get()[0];
        for (long done = 0; done < n; ) {
            int k = (int) Math.min(chunk, n - done);
            long o = off + done * layout.byteSize();
            MemorySegment.copy(buf, layout, o, x, 0, k);
            post(x, k);
            MemorySegment.copy(x, 0, buf, layout, o, k);
            done += k;
        }
    }

    private long bytes(long n) {
        if (n < 0) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "negative element count " + n, null);
        }
        return Math.multiplyExact(n, layout.byteSize());
    }

    /** Checked before anything is written: a range that does not fit leaves the destination as it was. */
    private static void checkRange(MemorySegment s, long off, long bytes) {
        if (off < 0 || off > s.byteSize() - bytes) {
            throw new IndexOutOfBoundsException("bytes [" + off + ", " + off + " + " + bytes + ") outside a segment of "
                    + s.byteSize());
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + type + " " + op + "]";
    }
}
