package org.nccl4j.core.kernel;

import java.lang.invoke.MethodHandles;
import java.util.List;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.proto.Ll128Line;
import org.nccl4j.core.proto.LlLine;
import org.nccl4j.core.reduce.Reducer;
import org.nccl4j.core.wait.Futex;

/**
 * Loads and initializes the host kernels' classes while a communicator is made, as NCCL loads
 * its device code during init: left to the first collective, their loading, verification and
 * static set-up (memory layouts, var handles, the reducers' tables) made that call take 11-19 ms
 * on a 2-core VM instead of 6-10, in the middle of a training loop's first step; likewise the
 * futex calls of a wait, whose first use took ~10 ms.
 */
final class KernelClasses {
    private static final List<Class<?>> CLASSES = List.of(Prims.class, Waiter.class, RingKernels.class,
            RingKernels.Split.class, TreeKernels.class, RecursiveDoubling.class, HalvingDoubling.class, Chunks.class,
            KernelParts.class, Staging.class, P2pKernel.class, AlgoChooser.Choice.class, ConnMem.class, LlLine.class,
            Ll128Line.class);

    private KernelClasses() {
    }

    /** Loads and initializes them (once per process; later calls find them initialized). */
    static void load() {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        try {
            for (Class<?> c : CLASSES) {
                lookup.ensureInitialized(c);
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        // The reducers' table: every element type's kernel class, made on first use.
        Reducer.of(DataType.FLOAT32, RedOp.SUM, 1);
        // And the system calls a wait sleeps and wakes with.
        Futex.link();
    }
}
