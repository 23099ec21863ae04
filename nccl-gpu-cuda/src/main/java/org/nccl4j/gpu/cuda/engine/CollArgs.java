package org.nccl4j.gpu.cuda.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The ring kernels' parameter block, packed as {@code common.h} lays them out (natural alignment,
 * little-endian): the launcher hands the bytes to {@code cuLaunchKernel} as they are.
 */
final class CollArgs {
    /** {@code struct n4j_coll_args}. */
    static final int COLL_BYTES = 64;

    private CollArgs() {
    }

    static void coll(MemorySegment a, long send, long recv, long count, long channels, long abortFlag, int nranks,
                     int root, int dtype, int redop, int stepBytes, int nChannels) {
        a.set(ValueLayout.JAVA_LONG, 0, send);
        a.set(ValueLayout.JAVA_LONG, 8, recv);
        a.set(ValueLayout.JAVA_LONG, 16, count);
        a.set(ValueLayout.JAVA_LONG, 24, channels);
        a.set(ValueLayout.JAVA_LONG, 32, abortFlag);
        a.set(ValueLayout.JAVA_INT, 40, nranks);
        a.set(ValueLayout.JAVA_INT, 44, root);
        a.set(ValueLayout.JAVA_INT, 48, dtype);
        a.set(ValueLayout.JAVA_INT, 52, redop);
        a.set(ValueLayout.JAVA_INT, 56, stepBytes);
        a.set(ValueLayout.JAVA_INT, 60, nChannels);
    }
}
