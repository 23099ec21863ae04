package org.nccl4j.core.enqueue;

import java.lang.foreign.MemorySegment;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;

/**
 * One collective after its arguments were checked ({@code ncclInfo}).
 *
 * @param func  which collective
 * @param in    send buffer
 * @param out   receive buffer
 * @param count elements (per rank for AllGather and ReduceScatter)
 * @param type  element type
 * @param op    reduction, or {@code null}
 * @param root  root rank, or -1
 */
public record CollOp(Func func, MemorySegment in, MemorySegment out, long count, DataType type, RedOp op, int root) {
    /** NCCL's function ids. */
    public enum Func {
        /** Broadcast. */
        BROADCAST,
        /** Reduce. */
        REDUCE,
        /** AllGather. */
        ALL_GATHER,
        /** ReduceScatter. */
        REDUCE_SCATTER,
        /** AllReduce. */
        ALL_REDUCE
    }
}
