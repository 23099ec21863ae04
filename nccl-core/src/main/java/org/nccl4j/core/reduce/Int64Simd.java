package org.nccl4j.core.reduce;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/**
 * int64 and uint64 with the Vector API. Lanes wrap on add and mul as the scalar types do; unsigned
 * MAX/MIN use UMAX/UMIN. The tails and AVG's division are {@link Int64Scalar}'s.
 */
final class Int64Simd extends BaseReducer {
    private static final VectorSpecies<Long> S = LongVector.SPECIES_PREFERRED;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    private final boolean unsigned;
    private final int nranks;

    Int64Simd(DataType type, RedOp op, int nranks, boolean unsigned) {
        super(type, op);
        this.unsigned = unsigned;
        this.nranks = nranks;
    }

    private static LongVector load(MemorySegment s, long off) {
        return LongVector.fromMemorySegment(S, s, off, NATIVE);
    }

    @Override
    public void reduce(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff, long n) {
        checkCount(n);
        long i = 0;
        long end = S.loopBound(n);
        int step = S.length();
        // One loop per op: the lanewise operator must be a constant for C2 to emit one instruction.
        switch (op) {
            case SUM, AVG -> {
                for (; i < end; i += step) {
                    long o = i << 3;
                    load(a, aOff + o).add(load(b, bOff + o)).intoMemorySegment(d, dOff + o, NATIVE);
                }
            }
            case PROD -> {
                for (; i < end; i += step) {
                    long o = i << 3;
                    load(a, aOff + o).mul(load(b, bOff + o)).intoMemorySegment(d, dOff + o, NATIVE);
                }
            }
            case MAX -> {
                if (unsigned) {
                    for (; i < end; i += step) {
                        long o = i << 3;
                        load(a, aOff + o).lanewise(VectorOperators.UMAX, load(b, bOff + o))
                                .intoMemorySegment(d, dOff + o, NATIVE);
                    }
                } else {
                    for (; i < end; i += step) {
                        long o = i << 3;
                        load(a, aOff + o).max(load(b, bOff + o)).intoMemorySegment(d, dOff + o, NATIVE);
                    }
                }
            }
            case MIN -> {
                if (unsigned) {
                    for (; i < end; i += step) {
                        long o = i << 3;
                        load(a, aOff + o).lanewise(VectorOperators.UMIN, load(b, bOff + o))
                                .intoMemorySegment(d, dOff + o, NATIVE);
                    }
                } else {
                    for (; i < end; i += step) {
                        long o = i << 3;
                        load(a, aOff + o).min(load(b, bOff + o)).intoMemorySegment(d, dOff + o, NATIVE);
                    }
                }
            }
        }
        long t = i << 3;
        Int64Scalar.apply(op, unsigned, a, aOff + t, b, bOff + t, d, dOff + t, n - i);
    }

    @Override
    public boolean hasPostOp() {
        return op == RedOp.AVG;
    }

    @Override
    public void postOp(MemorySegment buf, long off, long n) {
        checkCount(n);
        if (op == RedOp.AVG) {
            // Runs once per element of the result, after the whole reduction: a plain loop does.
            Int64Scalar.divide(buf, off, n, nranks, unsigned);
        }
    }
}
