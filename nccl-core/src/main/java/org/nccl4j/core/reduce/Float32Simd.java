package org.nccl4j.core.reduce;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/** float32 with the Vector API; the tail of each loop and the semantics are {@link Float32Scalar}'s. */
final class Float32Simd extends BaseReducer {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();

    private final float rcp;

    Float32Simd(RedOp op, int nranks) {
        super(DataType.FLOAT32, op);
        this.rcp = op == RedOp.AVG ? 1f / nranks : 1f;
    }

    private static FloatVector load(MemorySegment s, long off) {
        return FloatVector.fromMemorySegment(S, s, off, NATIVE);
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
                    long o = i << 2;
                    load(a, aOff + o).add(load(b, bOff + o)).intoMemorySegment(d, dOff + o, NATIVE);
                }
            }
            case PROD -> {
                for (; i < end; i += step) {
                    long o = i << 2;
                    load(a, aOff + o).mul(load(b, bOff + o)).intoMemorySegment(d, dOff + o, NATIVE);
                }
            }
            case MAX -> {
                for (; i < end; i += step) {
                    long o = i << 2;
                    FloatVector x = load(a, aOff + o);
                    FloatVector y = load(b, bOff + o);
                    // MAX lanes follow Math.max (NaN wins); fmaxf lets the number win instead.
                    x.max(y).blend(y, x.test(VectorOperators.IS_NAN)).blend(x, y.test(VectorOperators.IS_NAN))
                            .intoMemorySegment(d, dOff + o, NATIVE);
                }
            }
            case MIN -> {
                for (; i < end; i += step) {
                    long o = i << 2;
                    FloatVector x = load(a, aOff + o);
                    FloatVector y = load(b, bOff + o);
                    x.min(y).blend(y, x.test(VectorOperators.IS_NAN)).blend(x, y.test(VectorOperators.IS_NAN))
                            .intoMemorySegment(d, dOff + o, NATIVE);
                }
            }
        }
        long t = i << 2;
        Float32Scalar.apply(op, a, aOff + t, b, bOff + t, d, dOff + t, n - i);
    }

    @Override
    public boolean hasPreOp() {
        return op == RedOp.AVG;
    }

    @Override
    public void preOp(MemorySegment src, long srcOff, MemorySegment dst, long dOff, long n) {
        if (op != RedOp.AVG) {
            super.preOp(src, srcOff, dst, dOff, n);
            return;
        }
        checkCount(n);
        long i = 0;
        for (long end = S.loopBound(n); i < end; i += S.length()) {
            long o = i << 2;
            load(src, srcOff + o).mul(rcp).intoMemorySegment(dst, dOff + o, NATIVE);
        }
        long t = i << 2;
        Float32Scalar.scale(src, srcOff + t, dst, dOff + t, n - i, rcp);
    }
}
