package org.nccl4j.core.kernel;

import java.lang.foreign.MemorySegment;
import java.util.List;
import org.nccl4j.core.kernel.RecursiveDoubling.Exchange;
import org.nccl4j.core.kernel.RecursiveDoubling.Kind;

/**
 * The host engine's mid-size AllReduce (not NCCL's; MPI's Rabenseifner): a reduce-scatter by
 * recursive halving, then an all-gather by recursive doubling, over the partners of
 * {@link RecursiveDoubling} (the same connections). In each halving round a rank keeps one half
 * of the range it and its partner share, sends the other half and reduces what comes back into
 * its own; the all-gather retraces the rounds backwards, swapping the finished halves. So
 * {@code m} ranks take 2·log2(m) dependent hops, as recursive doubling's log2(m) twice, but a
 * rank sends 2(m-1)/m of the buffer in all, as a ring does, instead of the whole buffer every
 * hop.
 *
 * <p>Both partners of a round hold the same range (their ids differ only in that round's bit)
 * and split it at the same element, so they agree on every slice without telling each other.
 * Each element is reduced on one rank only and copied to the others, so every rank ends with
 * identical bytes. With {@code n} not a power of two the extra ranks fold in and take the result
 * back as in {@link RecursiveDoubling}.
 */
final class HalvingDoubling {
    private HalvingDoubling() {
    }

    /**
     * Runs this rank's part.
     *
     * @param rank   this rank
     * @param nranks ranks
     * @param plan   its exchanges ({@link RecursiveDoubling#plan}): rounds in rising partner distance
     * @param prims  one per exchange, sending to and receiving from its partner
     * @param in     input
     * @param out    output
     * @param count  elements
     * @param ts     element size
     */
    static void allReduce(int rank, int nranks, List<Exchange> plan, Prims[] prims, MemorySegment in,
                          MemorySegment out, long count, int ts) {
        int rounds = Integer.numberOfTrailingZeros(Integer.highestOneBit(nranks)); // log2(m), as in the plan
        int e = 0; // the first round's exchange
        boolean first = true; // the rank's own input still has to go through the pre-op
        if (plan.get(0).kind() == Kind.FOLD_OUT) {
            prims[0].send(in, 0, count);
            prims[1].recv(out, 0, count); // TAKE_BACK
            return;
        }
        if (plan.get(0).kind() == Kind.FOLD_IN) {
            prims[0].recvReduceCopy(in, 0, out, 0, count, true, false);
            first = false;
            e = 1;
        }
        int id = RecursiveDoubling.id(rank, nranks);
        long[] los = new long[rounds];
        long[] his = new long[rounds];
        long lo = 0;
        long hi = count;
        // Halving: the farthest partner first, so that each round's partners share their range.
        for (int j = rounds - 1; j >= 0; j--) {
            los[j] = lo;
            his[j] = hi;
            long mid = lo + (hi - lo) / 2;
            boolean lower = (id & (1 << j)) == 0;
            long keepLo = lower ? lo : mid;
            long keepHi = lower ? mid : hi;
            long giveLo = lower ? mid : lo;
            long giveHi = lower ? hi : mid;
            swap(prims[e + j], first ? in : out, giveLo, giveHi, first, out, keepLo, keepHi, true, j == 0,
                    ts);
            lo = keepLo;
            hi = keepHi;
            first = false;
        }
        // Doubling: the nearest partner first, each round swapping the finished halves.
        for (int j = 0; j < rounds; j++) {
            long otherLo = lo == los[j] ? hi : los[j];
            long otherHi = lo == los[j] ? his[j] : lo;
            swap(prims[e + j], out, lo, hi, false, out, otherLo, otherHi, false, false, ts);
            lo = los[j];
            hi = his[j];
        }
        if (e + rounds < plan.size()) {
            prims[e + rounds].sendRaw(out, 0, count); // GIVE_BACK
        }
    }

    /**
     * One round with a partner: sends {@code src}'s elements {@code [giveLo, giveHi)} and receives
     * the partner's {@code [keepLo, keepHi)} into {@code out}, reduced with {@code src}'s (halving)
     * or copied (doubling), slice by slice in turn, so that neither side waits for the other's
     * whole half.
     *
     * @param pre    whether {@code src} is the rank's input (pre-op applied on the way)
     * @param reduce whether the received slices are reduced with {@code src}'s, else copied
     * @param post   whether the reduced slices are final (post-op applied)
     */
    private static void swap(Prims p, MemorySegment src, long giveLo, long giveHi, boolean pre, MemorySegment out,
                             long keepLo, long keepHi, boolean reduce, boolean post, int ts) {
        long slice = p.sliceElems();
        long sends = steps(giveHi - giveLo, slice);
        long recvs = steps(keepHi - keepLo, slice);
        for (long k = 0; k < Math.max(sends, recvs); k++) {
            if (k < sends) {
                long off = giveLo + k * slice;
                long n = Math.min(slice, giveHi - off);
                if (pre) {
                    p.send(src, off * ts, n);
                } else {
                    p.sendRaw(src, off * ts, n);
                }
            }
            if (k < recvs) {
                long off = keepLo + k * slice;
                long n = Math.min(slice, keepHi - off);
                if (reduce) {
                    p.recvReduceCopy(src, off * ts, out, off * ts, n, pre, post);
                } else {
                    p.recv(out, off * ts, n);
                }
            }
        }
    }

    /** @return the calls a range takes: one a slice, and one (an empty step) for an empty range, on both partners alike */
    private static long steps(long elems, long slice) {
        return Math.max(1, (elems + slice - 1) / slice);
    }
}
