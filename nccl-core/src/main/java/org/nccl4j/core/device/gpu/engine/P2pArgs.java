package org.nccl4j.core.device.gpu.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The Send/Recv kernel's parameter block, {@code struct n4j_p2p_args} of {@code sendrecv.h}:
 * a header, then the lanes (one block each) and the transfers they run in order. Over 4 KiB, so
 * it needs a CUDA 12.1+ driver (kernel parameters up to 32 KiB), as nvcc 13's kernels do anyway.
 * hipcc lays it out whole in the AMD code objects' kernel argument segment (nccl-gpu-hip's
 * {@code CodeObjectContentsTest}); whether the HIP runtime launches it is known only on an AMD GPU.
 */
final class P2pArgs {
    /** {@code N4J_P2P_MAX_LANES}. */
    static final int MAX_LANES = 64;
    /** {@code N4J_P2P_MAX_OPS}. */
    static final int MAX_OPS = 448;
    private static final int HEADER_BYTES = 32;
    private static final int LANE_BYTES = 16;
    private static final int OP_BYTES = 16;
    private static final int OPS_AT = HEADER_BYTES + LANE_BYTES * MAX_LANES;
    /** {@code sizeof(struct n4j_p2p_args)}. */
    static final int BYTES = OPS_AT + OP_BYTES * MAX_OPS;

    private P2pArgs() {
    }

    static void header(MemorySegment a, long peers, long abortFlag, int nranks, int stepBytes, int nLanes, int nOps) {
        a.set(ValueLayout.JAVA_LONG, 0, peers);
        a.set(ValueLayout.JAVA_LONG, 8, abortFlag);
        a.set(ValueLayout.JAVA_INT, 16, nranks);
        a.set(ValueLayout.JAVA_INT, 20, stepBytes);
        a.set(ValueLayout.JAVA_INT, 24, nLanes);
        a.set(ValueLayout.JAVA_INT, 28, nOps);
    }

    static void lane(MemorySegment a, int index, int channel, int first, int count, boolean send) {
        long at = HEADER_BYTES + (long) LANE_BYTES * index;
        a.set(ValueLayout.JAVA_INT, at, channel);
        a.set(ValueLayout.JAVA_INT, at + 4, first);
        a.set(ValueLayout.JAVA_INT, at + 8, count);
        a.set(ValueLayout.JAVA_INT, at + 12, send ? 1 : 0);
    }

    static void op(MemorySegment a, int index, long buff, long bytes) {
        long at = OPS_AT + (long) OP_BYTES * index;
        a.set(ValueLayout.JAVA_LONG, at, buff);
        a.set(ValueLayout.JAVA_LONG, at + 8, bytes);
    }
}
