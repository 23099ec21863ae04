package org.nccl4j.examples.perf;

import org.nccl4j.RedOp;

/**
 * The expected result of reducing one element over all ranks, accumulated input by input and
 * compared with what the collective produced. Reused for every element: no allocation per element.
 *
 * <p>Integer types reduce in their own width (SUM and PROD wrap, MAX and MIN compare signed or
 * unsigned, AVG is C's truncating {@code T(sum / n)}), so the comparison is bit for bit. Floating
 * types reduce small integers, which is exact in double in any order; the expected value is then
 * rounded once to the type and compared bit for bit. AVG is the exception: NCCL multiplies every
 * input by {@code 1/n} rounded to the type before summing, so an inexact {@code 1/n} shifts the
 * result by up to about one ulp per rank; the check allows {@code n + 2} ulps of the largest
 * partial sum there (nccl-tests allows 2 ulps with inputs built for its own premultiplication).
 */
final class Expected {
    private final ElementType type;
    private final RedOp op;
    private final int nranks;
    private long acc;
    private double dacc;
    private double dabs;
    private boolean first;

    Expected(ElementType type, RedOp op, int nranks) {
        this.type = type;
        this.op = op;
        this.nranks = nranks;
    }

    /** Starts a new element. */
    void reset() {
        first = true;
        dabs = 0;
    }

    /** @param v one rank's input, a small integer */
    void add(long v) {
        if (type.isFloat()) {
            addFloat(v);
        } else {
            addInt(type.encode(v));
        }
        first = false;
    }

    private void addFloat(double v) {
        dabs += Math.abs(v);
        if (first) {
            dacc = v;
            return;
        }
        dacc = switch (op) {
            case SUM, AVG -> dacc + v;
            case PROD -> dacc * v;
            case MAX -> Math.max(dacc, v);
            case MIN -> Math.min(dacc, v);
        };
    }

    private void addInt(long raw) {
        if (first) {
            acc = raw;
            return;
        }
        long mask = type.mask();
        acc = switch (op) {
            case SUM, AVG -> (acc + raw) & mask;
            case PROD -> (acc * raw) & mask;
            case MAX -> compare(acc, raw) >= 0 ? acc : raw;
            case MIN -> compare(acc, raw) <= 0 ? acc : raw;
        };
    }

    /**
     * @param got the raw bits the collective produced
     * @return whether they are the expected result of the inputs added since {@link #reset()}
     */
    boolean matches(long got) {
        if (type.isFloat()) {
            if (op == RedOp.AVG) {
                double exact = dacc / nranks;
                return Math.abs(type.decodeDouble(got) - exact) <= (nranks + 2) * type.ulp(2 * dabs / nranks);
            }
            return type.encodeDouble(dacc) == got;
        }
        if (op == RedOp.AVG) {
            long avg = type.isUnsigned() ? Long.divideUnsigned(acc, nranks) : signed(acc) / nranks;
            return (avg & type.mask()) == got;
        }
        return acc == got;
    }

    private int compare(long a, long b) {
        return type.isUnsigned() ? Long.compareUnsigned(a, b) : Long.compare(signed(a), signed(b));
    }

    /** Sign-extends raw bits of the type's width. */
    private long signed(long raw) {
        int shift = 64 - 8 * type.size();
        return (raw << shift) >> shift;
    }
}
