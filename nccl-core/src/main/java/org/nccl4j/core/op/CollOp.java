package org.nccl4j.core.op;

import org.nccl4j.core.device.DeviceCollOp;
import java.lang.foreign.MemorySegment;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;
import org.nccl4j.core.topo.tuning.Algorithm;
import org.nccl4j.core.proto.Protocol;

/**
 * One collective after its arguments were checked ({@code ncclInfo}), with the algorithm and
 * protocol chosen for it ({@code info->algorithm}, {@code info->protocol}).
 *
 * @param func      which collective
 * @param in        send buffer
 * @param out       receive buffer
 * @param count     elements (per rank for AllGather and ReduceScatter)
 * @param type      element type
 * @param op        reduction, or {@code null}
 * @param root      root rank, or -1
 * @param algorithm how it runs, or {@code null} until chosen
 * @param protocol  with which protocol, or {@code null} until chosen
 * @param nChannels on how many channels (0 until chosen)
 */
public record CollOp(Func func, MemorySegment in, MemorySegment out, long count, DataType type, RedOp op, int root,
                     Algorithm algorithm, Protocol protocol, int nChannels) {
    /**
     * A collective whose algorithm and protocol are not chosen yet.
     *
     * @param func  which collective
     * @param in    send buffer
     * @param out   receive buffer
     * @param count elements
     * @param type  element type
     * @param op    reduction, or {@code null}
     * @param root  root rank, or -1
     */
    public CollOp(Func func, MemorySegment in, MemorySegment out, long count, DataType type, RedOp op, int root) {
        this(func, in, out, count, type, op, root, null, null, 0);
    }

    /**
     * @param a  the algorithm
     * @param p  the protocol
     * @param nc the channels
     * @return this collective, to run with them
     */
    public CollOp with(Algorithm a, Protocol p, int nc) {
        return new CollOp(func, in, out, count, type, op, root, a, p, nc);
    }

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
        ALL_REDUCE;

        /** @return the device collective kind of this function */
        public DeviceCollOp.Kind kind() {
            return switch (this) {
                case BROADCAST -> DeviceCollOp.Kind.BROADCAST;
                case REDUCE -> DeviceCollOp.Kind.REDUCE;
                case ALL_GATHER -> DeviceCollOp.Kind.ALL_GATHER;
                case REDUCE_SCATTER -> DeviceCollOp.Kind.REDUCE_SCATTER;
                case ALL_REDUCE -> DeviceCollOp.Kind.ALL_REDUCE;
            };
        }

        /** @return the function a device collective of this kind runs */
        public static Func of(DeviceCollOp.Kind kind) {
            return switch (kind) {
                case BROADCAST -> BROADCAST;
                case REDUCE -> REDUCE;
                case ALL_GATHER -> ALL_GATHER;
                case REDUCE_SCATTER -> REDUCE_SCATTER;
                case ALL_REDUCE -> ALL_REDUCE;
            };
        }
    }
}
