package org.nccl4j.core.matrix;

import java.util.ArrayList;
import java.util.List;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/**
 * The correctness matrix: every collective × DataType × RedOp × count × placement. The sample
 * that CI runs touches every value of every dimension (a cyclic walk through them); the full
 * product runs with {@code -Dnccl4j.matrix=full} (Maven profile {@code matrix}).
 */
public final class MatrixCases {
    /** Collectives in the matrix. */
    public static final List<String> COLLS = List.of("allreduce", "broadcast", "reduce", "allgather", "reducescatter");
    /** Counts: empty, one, odd, a prime spanning several slices and chunks, a few MiB of floats. */
    public static final long[] COUNTS = {0, 1, 7, 300_007, 1_048_583};

    private MatrixCases() {
    }

    /** @return whether the full product was asked for */
    public static boolean full() {
        return "full".equals(System.getProperty("nccl4j.matrix"));
    }

    /**
     * @param nranks ranks (roots are taken modulo it)
     * @param budget at most this many cases in sample mode
     * @return the cases
     */
    public static List<CollectiveCase> cases(int nranks, int budget) {
        List<CollectiveCase> all = new ArrayList<>();
        DataType[] types = DataType.values();
        RedOp[] ops = RedOp.values();
        int k = 0;
        for (String coll : COLLS) {
            boolean reduces = !coll.equals("broadcast") && !coll.equals("allgather");
            for (DataType t : types) {
                for (RedOp op : reduces ? ops : new RedOp[] {RedOp.SUM}) {
                    for (long count : COUNTS) {
                        for (boolean inPlace : new boolean[] {false, true}) {
                            int root = (k++) % nranks;
                            all.add(new CollectiveCase(coll, t, reduces ? op : null, count, inPlace, root));
                        }
                    }
                }
            }
        }
        if (full()) {
            return all;
        }
        // A walk that advances every dimension at a different pace so each value appears.
        List<CollectiveCase> sample = new ArrayList<>();
        for (int i = 0; i < budget; i++) {
            String coll = COLLS.get(i % COLLS.size());
            boolean reduces = !coll.equals("broadcast") && !coll.equals("allgather");
            DataType t = types[(i / 2 + i) % types.length];
            RedOp op = reduces ? ops[(i / 3) % ops.length] : null;
            long count = COUNTS[(i * 3 + i / 7) % COUNTS.length];
            if (count > 100_000 && (t.size() < 4 || i % 3 != 0)) {
                count = COUNTS[2 + i % 2];
            }
            sample.add(new CollectiveCase(coll, t, op, count, (i / 5) % 2 == 1, (i / 4) % nranks));
        }
        return sample;
    }

    /**
     * The sample of one collective only: the cyclic walk, long enough to find {@code budget}
     * cases of it (with their types, ops and counts varied as in the full walk).
     *
     * @param nranks ranks
     * @param budget cases wanted (sample mode)
     * @param coll   one of {@link #COLLS}
     * @return the cases
     */
    public static List<CollectiveCase> cases(int nranks, int budget, String coll) {
        return cases(nranks, budget * COLLS.size()).stream().filter(c -> c.coll().equals(coll)).toList();
    }
}
