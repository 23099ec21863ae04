package org.nccl4j.core.kernel;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The host engine's small AllReduce (not NCCL's; MPI's recursive doubling): in each round a rank
 * and its partner (rank XOR 1, 2, 4, ...) send each other their whole current buffer and both
 * reduce what they receive into it, so {@code n} ranks are done after log2(n) dependent hops
 * instead of a ring's 2(n - 1): for a message small enough that the hops, not the bytes, cost
 * the time. Every round's sum is the same on both partners (a + b = b + a bit for bit), so every
 * rank ends with identical bytes, as a ring leaves them.
 *
 * <p>With {@code n} not a power of two, {@code m} the largest power below it and {@code r = n -
 * m}: ranks {@code 2i} (i &lt; r) first hand their data to {@code 2i + 1} and take the result back
 * at the end; the other {@code m} ranks run the rounds (MPICH's scheme). Each exchange moves in
 * slices of one step (send a slice, then receive and reduce the partner's), so partners never
 * wait for each other's whole buffer.
 */
public final class RecursiveDoubling {
    private RecursiveDoubling() {
    }

    /**
     * One exchange of the plan: with whom, and how.
     *
     * @param peer the partner's rank
     * @param kind what this rank does
     */
    record Exchange(int peer, Kind kind) {
    }

    /** What a rank does in an exchange. */
    enum Kind {
        /** Sends its input (pre-op applied) to a partner that folds it in, and sits out the rounds. */
        FOLD_OUT,
        /** Receives a folded-out rank's data and reduces its own input with it. */
        FOLD_IN,
        /** A round: sends its buffer and reduces the partner's into it. */
        ROUND,
        /** Sends the result back to the rank that folded out. */
        GIVE_BACK,
        /** Receives the result. */
        TAKE_BACK
    }

    /**
     * @param rank   this rank
     * @param nranks ranks, at least 2
     * @return this rank's exchanges, in order
     */
    static List<Exchange> plan(int rank, int nranks) {
        int m = Integer.highestOneBit(nranks);
        int r = nranks - m;
        List<Exchange> plan = new ArrayList<>();
        if (rank < 2 * r && rank % 2 == 0) {
            plan.add(new Exchange(rank + 1, Kind.FOLD_OUT));
            plan.add(new Exchange(rank + 1, Kind.TAKE_BACK));
            return plan;
        }
        if (rank < 2 * r) {
            plan.add(new Exchange(rank - 1, Kind.FOLD_IN));
        }
        int id = id(rank, nranks);
        for (int mask = 1; mask < m; mask <<= 1) {
            int partner = id ^ mask;
            plan.add(new Exchange(partner < r ? 2 * partner + 1 : partner + r, Kind.ROUND));
        }
        if (rank < 2 * r) {
            plan.add(new Exchange(rank - 1, Kind.GIVE_BACK));
        }
        return plan;
    }

    /**
     * @param rank   a rank that runs the rounds (not one that folds out)
     * @param nranks ranks, at least 2
     * @return its place among the {@code m} ranks of the rounds: its partner in a round is the one
     *     whose place differs in that round's bit
     */
    static int id(int rank, int nranks) {
        int r = nranks - Integer.highestOneBit(nranks);
        return rank < 2 * r ? rank / 2 : rank - r;
    }

    /**
     * @param nranks ranks, at least 2
     * @return the dependent hops the longest path takes (what the latency costs)
     */
    public static int hops(int nranks) {
        int m = Integer.highestOneBit(nranks);
        return Integer.numberOfTrailingZeros(m) + (m == nranks ? 0 : 2);
    }

    /**
     * Runs this rank's part.
     *
     * @param plan  its exchanges ({@link #plan})
     * @param prims one per exchange, sending to and receiving from its partner
     * @param in    input
     * @param out   output
     * @param count elements
     * @param ts    element size
     */
    static void allReduce(List<Exchange> plan, Prims[] prims, MemorySegment in, MemorySegment out, long count,
                          int ts) {
        boolean first = true; // the rank's own input still has to go through the pre-op
        int last = lastReducing(plan);
        for (int e = 0; e < plan.size(); e++) {
            Prims p = prims[e];
            long slice = p.sliceElems();
            boolean post = e == last;
            switch (plan.get(e).kind()) {
                case FOLD_OUT -> p.send(in, 0, count);
                case TAKE_BACK -> p.recv(out, 0, count);
                case GIVE_BACK -> p.sendRaw(out, 0, count);
                case FOLD_IN -> p.recvReduceCopy(in, 0, out, 0, count, true, post);
                case ROUND -> {
                    MemorySegment src = first ? in : out;
                    long off = 0;
                    do { // an empty call still exchanges one empty step, as the other kinds do
                        long n = Math.min(slice, count - off);
                        if (first) {
                            p.send(src, off * ts, n);
                        } else {
                            p.sendRaw(src, off * ts, n);
                        }
                        p.recvReduceCopy(src, off * ts, out, off * ts, n, first, post);
                        off += n;
                    } while (off < count);
                }
            }
            first = false;
        }
    }

    /** @return the index of the last exchange that reduces (its result gets the post-op), or -1 */
    private static int lastReducing(List<Exchange> plan) {
        for (int e = plan.size() - 1; e >= 0; e--) {
            Kind k = plan.get(e).kind();
            if (k == Kind.ROUND || k == Kind.FOLD_IN) {
                return e;
            }
        }
        return -1;
    }
}
