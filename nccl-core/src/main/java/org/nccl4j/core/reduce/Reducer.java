package org.nccl4j.core.reduce;

import java.lang.foreign.MemorySegment;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/**
 * An element-wise reduction of one {@link DataType} by one {@link RedOp}, with NCCL 2.10.3's
 * semantics ({@code src/collectives/device/reduce_kernel.h}):
 * <ul>
 *   <li>integers wrap modulo 2<sup>bits</sup> on SUM and PROD; unsigned types compare as
 *       unsigned;</li>
 *   <li>float MAX/MIN are C's {@code fmax}/{@code fmin} as the GPU runs them: a NaN operand is
 *       ignored unless both are NaN, and -0.0 is below +0.0;</li>
 *   <li>float16 and bfloat16 are computed in float and rounded back to nearest-even; a NaN result
 *       is the canonical {@code 0x7fff}, as the GPU writes it;</li>
 *   <li>AVG sums. Floating types pre-multiply each rank's own input by the reciprocal of nranks
 *       ({@link #hasPreOp()}), integer types divide the full sum by nranks, truncating
 *       ({@link #hasPostOp()}).</li>
 * </ul>
 * Offsets are in bytes and need no alignment; segments may be native or heap segments.
 * Instances are immutable and safe to share between threads.
 */
public interface Reducer {

    /**
     * Computes {@code dst[i] = a[i] OP b[i]} for {@code i} in {@code [0, n)}. {@code a}, {@code b}
     * and {@code dst} may be the very same range (in place) but must never overlap partially.
     *
     * @param a first operand segment
     * @param aOff byte offset of the first element in {@code a}
     * @param b second operand segment
     * @param bOff byte offset of the first element in {@code b}
     * @param dst result segment
     * @param dOff byte offset of the first element in {@code dst}
     * @param n number of elements, at least 0
     * @throws IndexOutOfBoundsException if a range lies outside its segment
     */
    void reduce(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dOff, long n);

    /**
     * Computes {@code dst[i] = a[i] OP pre(b[i])} in one pass, as NCCL applies the pre-op to a
     * rank's own input while it loads it for the reduction ({@code ReduceOrCopyMulti}'s
     * {@code PreOpN}): {@link #preOp} into {@code dst}, then {@link #reduce} of {@code a} and
     * {@code dst}, bit for bit, without the second pass over {@code dst}. Ranges as for
     * {@link #reduce}.
     *
     * @param a first operand segment (taken as it is: a peer's data, already pre-op'd)
     * @param aOff byte offset of the first element in {@code a}
     * @param b second operand segment, this rank's own input
     * @param bOff byte offset of the first element in {@code b}
     * @param dst result segment
     * @param dOff byte offset of the first element in {@code dst}
     * @param n number of elements, at least 0
     * @throws IndexOutOfBoundsException if a range lies outside its segment
     */
    void reducePreOp(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dOff, long n);

    /**
     * @return whether data taken from a rank's own input must go through {@link #preOp} before
     *     it enters the reduction (NCCL's pre-op, e.g. AVG's pre-multiply for floating types)
     */
    boolean hasPreOp();

    /**
     * Computes {@code dst[i] = pre(src[i])}; a plain copy when {@link #hasPreOp()} is false.
     * {@code src} and {@code dst} may be the same range.
     *
     * @param src source segment
     * @param srcOff byte offset of the first element in {@code src}
     * @param dst destination segment
     * @param dOff byte offset of the first element in {@code dst}
     * @param n number of elements, at least 0
     */
    void preOp(MemorySegment src, long srcOff, MemorySegment dst, long dOff, long n);

    /**
     * @return whether the fully reduced value must go through {@link #postOp} (NCCL's post-op,
     *     e.g. integer AVG's division by nranks)
     */
    boolean hasPostOp();

    /**
     * Transforms fully reduced values in place; does nothing when {@link #hasPostOp()} is false.
     *
     * @param buf the segment
     * @param off byte offset of the first element
     * @param n number of elements, at least 0
     */
    void postOp(MemorySegment buf, long off, long n);

    /**
     * The kernel for a type and operation: plain loops, which C2 vectorizes (see the package
     * documentation for why not the Vector API).
     *
     * @param type the element type
     * @param op the reduction
     * @param nranks number of ranks in the communicator; used by {@link RedOp#AVG} only, where it
     *     must be at least 1
     * @return the kernel
     * @throws org.nccl4j.NcclException with {@link org.nccl4j.Result#INVALID_ARGUMENT} for a null
     *     type or op, or AVG with nranks below 1
     */
    static Reducer of(DataType type, RedOp op, int nranks) {
        return Reducers.select(type, op, nranks);
    }
}
