package org.nccl4j.core.device.gpu.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.core.device.DeviceCollPlan;

/**
 * The ring kernels' parameter block, packed as {@code common.h} lays them out (natural alignment,
 * little-endian): the launcher hands the bytes to {@code cuLaunchKernel} as they are.
 */
final class CollArgs {
    /** {@code struct n4j_coll_args}. */
    static final int COLL_BYTES = 88;

    private CollArgs() {
    }

    /**
     * Packs one collective: its buffers, the channel array, and the plan's chunking.
     *
     * @param count elements of the plan's unit (bytes for Broadcast and AllGather)
     */
    static void coll(MemorySegment a, long send, long recv, long count, long channels, long abortFlag,
                     DeviceCollPlan plan, int nranks, int root, int dtype, int redop) {
        a.set(ValueLayout.JAVA_LONG, 0, send);
        a.set(ValueLayout.JAVA_LONG, 8, recv);
        a.set(ValueLayout.JAVA_LONG, 16, count);
        a.set(ValueLayout.JAVA_LONG, 24, channels);
        a.set(ValueLayout.JAVA_LONG, 32, abortFlag);
        a.set(ValueLayout.JAVA_LONG, 40, plan.chunk());
        a.set(ValueLayout.JAVA_LONG, 48, plan.align());
        a.set(ValueLayout.JAVA_INT, 56, nranks);
        a.set(ValueLayout.JAVA_INT, 60, root);
        a.set(ValueLayout.JAVA_INT, 64, dtype);
        a.set(ValueLayout.JAVA_INT, 68, redop);
        a.set(ValueLayout.JAVA_INT, 72, plan.stepBytes());
        a.set(ValueLayout.JAVA_INT, 76, plan.nChannels());
        a.set(ValueLayout.JAVA_INT, 80, plan.interleaved() ? 1 : 0);
        a.set(ValueLayout.JAVA_INT, 84, 0);
    }
}
