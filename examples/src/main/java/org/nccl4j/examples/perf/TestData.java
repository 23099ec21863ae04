package org.nccl4j.examples.perf;

import java.lang.foreign.MemorySegment;
import org.nccl4j.RedOp;

/**
 * Inputs and expected outputs of the data check, as nccl-tests' {@code initData} and
 * {@code CheckData}: every rank fills its input with small integers that depend on its rank, the
 * element index and a repetition counter, runs the collective once, and counts the output
 * elements that differ from what it computes locally.
 *
 * <p>Small integers (-4 to 3; 1 or 2 for PROD) keep floating-point sums and products exact in any
 * order and for every type, bfloat16 included, up to 32 ranks; integer types wrap as NCCL's do.
 * The value is a hash of (rank, index, repetition), so a block landing at the wrong offset or from
 * the wrong rank is caught.
 */
final class TestData {
    private final Collective coll;
    private final ElementType type;
    private final RedOp op;
    private final int nranks;
    private final int rank;
    private final int root;

    /**
     * @param coll   collective
     * @param type   element type
     * @param op     reduction
     * @param nranks number of ranks
     * @param rank   this rank
     * @param root   root of Broadcast and Reduce
     */
    TestData(Collective coll, ElementType type, RedOp op, int nranks, int rank, int root) {
        this.coll = coll;
        this.type = type;
        this.op = op;
        this.nranks = nranks;
        this.rank = rank;
        this.root = root;
    }

    /**
     * The input of {@code rank}'s element {@code index}.
     *
     * @param rank  the rank whose input it is
     * @param index element index in that rank's send buffer
     * @param rep   repetition counter
     * @param prod  whether the reduction is PROD (inputs 1 or 2, so products stay exact)
     * @return a small integer
     */
    static long value(int rank, long index, int rep, boolean prod) {
        long h = index * 0x9E3779B97F4A7C15L + rank * 0xBF58476D1CE4E5B9L + rep * 0x94D049BB133111EBL;
        h ^= h >>> 31;
        h *= 0xD6E8FEB86659FD93L;
        h ^= h >>> 32;
        return prod ? 1 + (h >>> 63) : (h >>> 61) - 4;
    }

    private long value(int r, long index, int rep) {
        return value(r, index, rep, op == RedOp.PROD);
    }

    /**
     * Zeroes the receive buffer and writes this rank's input, as nccl-tests' {@code initData}.
     *
     * @param send    the out-of-place send buffer
     * @param recv    the receive buffer (also the in-place buffer)
     * @param counts  element counts of this size
     * @param inPlace whether the run is in place
     * @param rep     repetition counter
     */
    void fill(MemorySegment send, MemorySegment recv, ByteCounts counts, boolean inPlace, int rep) {
        long ts = type.size();
        recv.asSlice(0, Math.max(counts.recvCount(), inPlace ? counts.sendCount() : 0) * ts).fill((byte) 0);
        if (coll == Collective.BROADCAST && rank != root) {
            return; // only the root's input is read
        }
        MemorySegment in = inPlace ? recv.asSlice(counts.sendInplaceOffset() * rank * ts) : send;
        for (long i = 0; i < counts.sendCount(); i++) {
            type.write(in, i, type.encode(value(rank, i, rep)));
        }
    }

    /**
     * Counts the output elements that differ from the expected result, as nccl-tests'
     * {@code CheckData}.
     *
     * @param recv    the receive buffer
     * @param counts  element counts of this size
     * @param inPlace whether the run was in place
     * @param rep     repetition counter used by {@link #fill}
     * @return the number of wrong elements on this rank
     */
    long check(MemorySegment recv, ByteCounts counts, boolean inPlace, int rep) {
        long ts = type.size();
        MemorySegment out = inPlace ? recv.asSlice(counts.recvInplaceOffset() * rank * ts) : recv;
        Expected e = new Expected(type, op, nranks);
        long pc = counts.paramCount();
        long wrong = 0;
        for (long i = 0; i < counts.recvCount(); i++) {
            long got = type.read(out, i);
            boolean ok = switch (coll) {
                case ALLREDUCE -> reduced(e, i, rep, got);
                case REDUCESCATTER -> reduced(e, rank * pc + i, rep, got);
                case REDUCE -> rank == root ? reduced(e, i, rep, got)
                        : got == (inPlace ? type.encode(value(rank, i, rep)) : 0); // untouched
                case BROADCAST -> got == type.encode(value(root, i, rep));
                case ALLGATHER -> got == type.encode(value((int) (i / pc), i % pc, rep));
                case SENDRECV -> got == type.encode(value((rank - 1 + nranks) % nranks, i, rep));
                case ALLTOALL -> got == type.encode(value((int) (i / pc), rank * pc + i % pc, rep));
            };
            if (!ok) {
                wrong++;
            }
        }
        return wrong;
    }

    /** Reduces element {@code index} of every rank's input and compares. */
    private boolean reduced(Expected e, long index, int rep, long got) {
        e.reset();
        for (int r = 0; r < nranks; r++) {
            e.add(value(r, index, rep));
        }
        return e.matches(got);
    }
}
