package org.nccl4j.core.matrix;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.nccl4j.Communicator;
import org.nccl4j.Completion;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;
import org.nccl4j.Stream;

/**
 * One cell of the correctness matrix as one rank runs it: fills its inputs, enqueues the
 * collective, and counts the elements of its output that differ from the locally computed
 * expectation.
 *
 * @param coll    allreduce, broadcast, reduce, allgather, reducescatter
 * @param type    element type
 * @param op      reduction (ignored by broadcast and allgather)
 * @param count   elements (per rank for allgather and reducescatter)
 * @param inPlace whether output and input share memory as NCCL defines in-place
 * @param root    root rank for broadcast and reduce
 */
public record CollectiveCase(String coll, DataType type, RedOp op, long count, boolean inPlace, int root) {
    /** The buffers of one rank. */
    public final class RankBuffers {
        final int rank;
        final int nranks;
        final MemorySegment in;
        final MemorySegment out;

        RankBuffers(Arena arena, int rank, int nranks) {
            this.rank = rank;
            this.nranks = nranks;
            long ts = type.size();
            long n = nranks;
            switch (coll) {
                case "allgather" -> {
                    out = arena.allocate(Math.max(1, n * count * ts), 64);
                    in = inPlace ? out.asSlice(rank * count * ts, count * ts) : arena.allocate(Math.max(1, count * ts), 64);
                    for (long i = 0; i < count; i++) {
                        Values.put(in, type, i, Values.input(RedOp.SUM, type, rank, i));
                    }
                }
                case "reducescatter" -> {
                    in = arena.allocate(Math.max(1, n * count * ts), 64);
                    out = inPlace ? in.asSlice(rank * count * ts, count * ts) : arena.allocate(Math.max(1, count * ts), 64);
                    for (long i = 0; i < n * count; i++) {
                        Values.put(in, type, i, Values.input(op, type, rank, i));
                    }
                }
                default -> {
                    in = arena.allocate(Math.max(1, count * ts), 64);
                    out = inPlace ? in : arena.allocate(Math.max(1, count * ts), 64);
                    RedOp dataOp = coll.equals("broadcast") ? RedOp.SUM : op;
                    for (long i = 0; i < count; i++) {
                        Values.put(in, type, i, Values.input(dataOp, type, rank, i));
                    }
                }
            }
        }

        /**
         * @param comm   this rank's communicator
         * @param stream where to enqueue
         * @return the completion
         */
        public Completion enqueue(Communicator comm, Stream stream) {
            return switch (coll) {
                case "allreduce" -> comm.allReduce(in, out, count, type, op, stream);
                case "broadcast" -> comm.broadcast(in, out, count, type, root, stream);
                case "reduce" -> comm.reduce(in, out, count, type, op, root, stream);
                case "allgather" -> comm.allGather(in, out, count, type, stream);
                case "reducescatter" -> comm.reduceScatter(in, out, count, type, op, stream);
                default -> throw new IllegalArgumentException(coll);
            };
        }

        /** @return how many output elements are wrong (0 on ranks whose output is undefined) */
        public long wrong() {
            long bad = 0;
            switch (coll) {
                case "allreduce" -> {
                    for (long i = 0; i < count; i++) {
                        bad += check(out, i, Values.expected(op, type, nranks, i));
                    }
                }
                case "reduce" -> {
                    if (rank == root) {
                        for (long i = 0; i < count; i++) {
                            bad += check(out, i, Values.expected(op, type, nranks, i));
                        }
                    }
                }
                case "broadcast" -> {
                    for (long i = 0; i < count; i++) {
                        bad += check(out, i, Values.get(value(root, i), type, 0));
                    }
                }
                case "allgather" -> {
                    for (int r = 0; r < nranks; r++) {
                        for (long i = 0; i < count; i++) {
                            bad += check(out, r * count + i, Values.get(value(r, i), type, 0));
                        }
                    }
                }
                case "reducescatter" -> {
                    for (long i = 0; i < count; i++) {
                        bad += check(out, i, Values.expected(op, type, nranks, rank * count + i));
                    }
                }
                default -> throw new IllegalArgumentException(coll);
            }
            return bad;
        }

        /** A one-element segment holding rank r's input value i as the type stores it (wrapping included). */
        private MemorySegment value(int r, long i) {
            MemorySegment one = MemorySegment.ofArray(new long[1]);
            Values.put(one, type, 0, Values.input(RedOp.SUM, type, r, i));
            return one;
        }

        private int check(MemorySegment seg, long i, double want) {
            return Values.matches(op, type, Values.get(seg, type, i), want) ? 0 : 1;
        }
    }

    /**
     * @param arena  owns the buffers
     * @param rank   the rank
     * @param nranks ranks
     * @return this rank's buffers, inputs filled
     */
    public RankBuffers buffers(Arena arena, int rank, int nranks) {
        return new RankBuffers(arena, rank, nranks);
    }

    @Override
    public String toString() {
        return coll + " " + type + " " + (op == null ? "" : op + " ") + "count " + count + (inPlace ? " in-place" : "")
                + (root > 0 ? " root " + root : "");
    }
}
