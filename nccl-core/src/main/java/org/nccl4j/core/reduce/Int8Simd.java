package org.nccl4j.core.reduce;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/**
 * int8 and uint8 with the Vector API. Lanes wrap on add and mul as the scalar types do; unsigned
 * MAX/MIN use UMAX/UMIN. The tails and AVG's division are {@link Int8Scalar}'s.
 */
final class Int8Simd extends BaseReducer {
    private static final VectorSpecies<Byte> S = ByteVector.SPECIES_PREFERRED;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    private final boolean unsigned;
    private final int nranks;

    Int8Simd(DataType type, RedOp op, int nranks, boolean unsigned) {
        super(type, op);
        this.unsigned = unsigned;
        this.nranks = nranks;
    }

    private static ByteVector load(MemorySegment s, long off) {
        return ByteVector.fromMemorySegment(S, s, off, NATIVE);
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
                    load(a, aOff + i).add(load(b, bOff + i)).intoMemorySegment(d, dOff + i, NATIVE);
                }
            }
            case PROD -> {
                for (; i < end; i += step) {
                    load(a, aOff + i).mul(load(b, bOff + i)).intoMemorySegment(d, dOff + i, NATIVE);
                }
            }
            case MAX -> {
                if (unsigned) {
                    for (; i < end; i += step) {
                        load(a, aOff + i).lanewise(VectorOperators.UMAX, load(b, bOff + i))
                                .intoMemorySegment(d, dOff + i, NATIVE);
                    }
                } else {
                    for (; i < end; i += step) {
                        load(a, aOff + i).max(load(b, bOff + i)).intoMemorySegment(d, dOff + i, NATIVE);
                    }
                }
            }
            case MIN -> {
                if (unsigned) {
                    for (; i < end; i += step) {
                        load(a, aOff + i).lanewise(VectorOperators.UMIN, load(b, bOff + i))
                                .intoMemorySegment(d, dOff + i, NATIVE);
                    }
                } else {
                    for (; i < end; i += step) {
                        load(a, aOff + i).min(load(b, bOff + i)).intoMemorySegment(d, dOff + i, NATIVE);
                    }
                }
            }
        }
        Int8Scalar.apply(op, unsigned, a, aOff + i, b, bOff + i, d, dOff + i, n - i);
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
            Int8Scalar.divide(buf, off, n, nranks, unsigned);
        }
    }
}
