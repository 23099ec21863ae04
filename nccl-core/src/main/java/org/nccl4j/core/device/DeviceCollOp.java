package org.nccl4j.core.device;

import org.nccl4j.DataType;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.RedOp;

/**
 * One collective on device memory, checked by the communicator before the backend sees it: the
 * buffers are this device's, long enough for {@code count} (per rank for AllGather and
 * ReduceScatter), {@code root} is a rank where the collective has one.
 *
 * @param kind  the collective
 * @param send  input ({@code recv} itself when in place)
 * @param recv  output
 * @param count elements ({@code sendcount} of AllGather, {@code recvcount} of ReduceScatter)
 * @param type  element type
 * @param op    reduction, {@code null} for Broadcast and AllGather
 * @param root  root rank of Broadcast and Reduce, else -1
 */
public record DeviceCollOp(Kind kind, DeviceBuffer send, DeviceBuffer recv, long count, DataType type, RedOp op,
                           int root) {
    /** The collectives, with NCCL's names ({@code ncclFuncStr}). */
    public enum Kind {
        /** {@code ncclFuncBroadcast}. */
        BROADCAST("Broadcast"),
        /** {@code ncclFuncReduce}. */
        REDUCE("Reduce"),
        /** {@code ncclFuncAllGather}. */
        ALL_GATHER("AllGather"),
        /** {@code ncclFuncReduceScatter}. */
        REDUCE_SCATTER("ReduceScatter"),
        /** {@code ncclFuncAllReduce}. */
        ALL_REDUCE("AllReduce");

        private final String ncclName;

        Kind(String ncclName) {
            this.ncclName = ncclName;
        }

        /** @return NCCL's name */
        public String ncclName() {
            return ncclName;
        }
    }
}
