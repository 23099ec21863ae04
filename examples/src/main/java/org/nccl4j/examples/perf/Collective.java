package org.nccl4j.examples.perf;

import java.lang.foreign.MemorySegment;
import java.util.Locale;
import org.nccl4j.Communicator;
import org.nccl4j.Completion;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;
import org.nccl4j.Stream;
import org.nccl4j.core.op.CollOp;

/**
 * The collectives {@code nccl4j perf} measures, each with nccl-tests' buffer sizes and bandwidth
 * formula (spec §10.2, nccl-tests {@code src/*.cu}).
 */
public enum Collective {
    /** {@code all_reduce_perf}. */
    ALLREDUCE("all_reduce_perf", true, false, true),
    /** {@code broadcast_perf}. */
    BROADCAST("broadcast_perf", false, true, true),
    /** {@code reduce_perf}. */
    REDUCE("reduce_perf", true, true, true),
    /** {@code all_gather_perf}. */
    ALLGATHER("all_gather_perf", false, false, true),
    /** {@code reduce_scatter_perf}. */
    REDUCESCATTER("reduce_scatter_perf", true, false, true),
    /** {@code sendrecv_perf}: every rank sends to rank+1 and receives from rank-1. */
    SENDRECV("sendrecv_perf", true, false, false),
    /** {@code alltoall_perf}. */
    ALLTOALL("alltoall_perf", false, false, false);

    private final String program;
    private final boolean showsRedop;
    private final boolean rooted;
    private final boolean checksInPlace;

    Collective(String program, boolean showsRedop, boolean rooted, boolean checksInPlace) {
        this.program = program;
        this.showsRedop = showsRedop;
        this.rooted = rooted;
        this.checksInPlace = checksInPlace;
    }

    /** @return nccl-tests' program name, e.g. {@code all_reduce_perf} */
    public String program() {
        return program;
    }

    /**
     * @return whether the {@code redop} column names the reduction; nccl-tests prints
     *     {@code none} for AllGather, Broadcast and AlltoAll (and the unused op for SendRecv)
     */
    public boolean showsRedop() {
        return showsRedop;
    }

    /** @return whether the {@code root} column holds the root; otherwise it is -1 */
    public boolean rooted() {
        return rooted;
    }

    /**
     * @return whether the in-place run is checked; nccl-tests does not support in-place
     *     SendRecv and AlltoAll and prints N/A for them
     */
    public boolean checksInPlace() {
        return checksInPlace;
    }

    /**
     * @param name {@code allreduce}, {@code all_reduce}, {@code all_reduce_perf}, ... any case
     * @return the collective
     * @throws IllegalArgumentException for an unknown name
     */
    public static Collective parse(String name) {
        String n = name.toLowerCase(Locale.ROOT).replace("_perf", "").replace("_", "").replace("-", "");
        for (Collective c : values()) {
            if (c.name().toLowerCase(Locale.ROOT).equals(n)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown collective '" + name
                + "': use allreduce, broadcast, reduce, allgather, reducescatter, sendrecv or alltoall");
    }

    /**
     * nccl-tests' {@code getCollByteCount}: what a size of {@code count} elements means for this
     * collective. AllGather, ReduceScatter and AlltoAll divide by the number of ranks, so the
     * size column is the total over ranks.
     *
     * @param count  size / element size
     * @param nranks number of ranks
     * @return the element counts
     */
    public ByteCounts counts(long count, int nranks) {
        long base = count / nranks;
        return switch (this) {
            case ALLREDUCE, BROADCAST, REDUCE, SENDRECV -> new ByteCounts(count, count, count, 0, 0);
            case ALLGATHER -> new ByteCounts(base, base * nranks, base, base, 0);
            case REDUCESCATTER -> new ByteCounts(base * nranks, base, base, 0, base);
            case ALLTOALL -> new ByteCounts(base * nranks, base * nranks, base, 0, 0);
        };
    }

    /**
     * nccl-tests' {@code getBw}'s bus factor: how many bytes each link carries per byte of the
     * algorithm bandwidth (AllReduce 2(n-1)/n; ReduceScatter, AllGather, AlltoAll (n-1)/n;
     * Broadcast, Reduce, SendRecv 1).
     *
     * @param nranks number of ranks
     * @return the factor
     */
    public double busFactor(int nranks) {
        return switch (this) {
            case ALLREDUCE -> 2.0 * (nranks - 1) / nranks;
            case ALLGATHER, REDUCESCATTER, ALLTOALL -> (double) (nranks - 1) / nranks;
            case BROADCAST, REDUCE, SENDRECV -> 1.0;
        };
    }

    /**
     * @param paramCount the count passed to the collective
     * @param typeSize   bytes per element
     * @param nranks     number of ranks
     * @return the bytes algbw divides by the time (count x size, times n for the per-rank counts)
     */
    public long algBytes(long paramCount, int typeSize, int nranks) {
        return switch (this) {
            case ALLGATHER, REDUCESCATTER, ALLTOALL -> paramCount * typeSize * nranks;
            default -> paramCount * typeSize;
        };
    }

    /**
     * @return NCCL's function of this test, or {@code null} for the point-to-point tests
     */
    public CollOp.Func func() {
        return switch (this) {
            case ALLREDUCE -> CollOp.Func.ALL_REDUCE;
            case BROADCAST -> CollOp.Func.BROADCAST;
            case REDUCE -> CollOp.Func.REDUCE;
            case ALLGATHER -> CollOp.Func.ALL_GATHER;
            case REDUCESCATTER -> CollOp.Func.REDUCE_SCATTER;
            case SENDRECV, ALLTOALL -> null;
        };
    }

    /**
     * Enqueues one call, as nccl-tests' {@code runColl}.
     *
     * @param comm   the communicator
     * @param send   send buffer
     * @param recv   receive buffer
     * @param count  the count passed to the collective
     * @param type   element type
     * @param op     reduction (ignored by collectives without one)
     * @param root   root of Broadcast and Reduce
     * @param stream where to enqueue
     * @return the completion of the call
     */
    public Completion run(Communicator comm, MemorySegment send, MemorySegment recv, long count, ElementType type,
                          RedOp op, int root, Stream stream) {
        return switch (this) {
            case ALLREDUCE -> comm.allReduce(send, recv, count, type.type(), op, stream);
            case BROADCAST -> comm.broadcast(send, recv, count, type.type(), root, stream);
            case REDUCE -> comm.reduce(send, recv, count, type.type(), op, root, stream);
            case ALLGATHER -> comm.allGather(send, recv, count, type.type(), stream);
            case REDUCESCATTER -> comm.reduceScatter(send, recv, count, type.type(), op, stream);
            case ALLTOALL -> comm.allToAll(send, recv, count, type.type(), stream);
            case SENDRECV -> sendRecv(comm, send, recv, count, type, stream);
        };
    }

    /**
     * Makes one blocking call: AllReduce through the communicator's blocking form (the calling
     * thread runs it when the stream is idle), the others enqueued on {@code stream} and waited for.
     *
     * @param comm   the communicator
     * @param send   send buffer
     * @param recv   receive buffer
     * @param count  the count passed to the collective
     * @param type   element type
     * @param op     reduction (ignored by collectives without one)
     * @param root   root of Broadcast and Reduce
     * @param stream where the others are enqueued
     */
    public void runBlocking(Communicator comm, MemorySegment send, MemorySegment recv, long count, ElementType type,
                            RedOp op, int root, Stream stream) {
        if (this == ALLREDUCE) {
            comm.allReduce(send, recv, count, type.type(), op);
        } else {
            run(comm, send, recv, count, type, op, root, stream).await();
        }
    }

    /**
     * Enqueues one call on device memory ({@code --device cuda}).
     *
     * @param comm   the communicator
     * @param send   send buffer
     * @param recv   receive buffer
     * @param count  the count passed to the collective
     * @param type   element type
     * @param op     reduction (ignored by collectives without one)
     * @param root   root of Broadcast and Reduce
     * @param stream where to enqueue, a stream of {@code comm}
     * @return the completion of the call
     */
    public Completion run(Communicator comm, DeviceBuffer send, DeviceBuffer recv, long count, ElementType type,
                          RedOp op, int root, Stream stream) {
        return switch (this) {
            case ALLREDUCE -> comm.allReduce(send, recv, count, type.type(), op, stream);
            case BROADCAST -> comm.broadcast(send, recv, count, type.type(), root, stream);
            case REDUCE -> comm.reduce(send, recv, count, type.type(), op, root, stream);
            case ALLGATHER -> comm.allGather(send, recv, count, type.type(), stream);
            case REDUCESCATTER -> comm.reduceScatter(send, recv, count, type.type(), op, stream);
            case ALLTOALL -> comm.allToAll(send, recv, count, type.type(), stream);
            case SENDRECV -> {
                int n = comm.count();
                int me = comm.userRank();
                Nccl.groupStart();
                try {
                    comm.send(send, count, type.type(), (me + 1) % n, stream);
                    yield comm.recv(recv, count, type.type(), (me - 1 + n) % n, stream);
                } finally {
                    Nccl.groupEnd();
                }
            }
        };
    }

    private static Completion sendRecv(Communicator comm, MemorySegment send, MemorySegment recv, long count,
                                       ElementType type, Stream stream) {
        int n = comm.count();
        int me = comm.userRank();
        Completion last;
        Nccl.groupStart();
        try {
            comm.send(send, count, type.type(), (me + 1) % n, stream);
            last = comm.recv(recv, count, type.type(), (me - 1 + n) % n, stream);
        } finally {
            Nccl.groupEnd();
        }
        return last;
    }
}
