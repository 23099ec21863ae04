package org.nccl4j.core.device.gpu.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;

/**
 * The host watchdog of a GPU communicator's kernels: a kernel that waits for a peer polls only
 * its communicator's abort flag, so a collective that a peer never joins, or whose data never
 * arrives, would spin until someone awaits its completion, and meanwhile keep every other
 * kernel of the context, and any {@code cuMemFree}, waiting. Every tenth of a second this
 * process's one watchdog thread looks at each communicator's unfinished work; work enqueued
 * longer ago than {@code NCCL4J_OP_TIMEOUT_MS} fails the communicator (TIMEOUT, its async
 * error), whose abort flag ends its kernels. Like PyTorch's NCCL watchdog, the time counts
 * from the enqueue.
 */
final class KernelWatchdog {
    private static final long PERIOD_MILLIS = 100;
    private static final Set<GpuCollectives> WATCHED = ConcurrentHashMap.newKeySet();
    private static final ScheduledExecutorService THREAD = Executors.newSingleThreadScheduledExecutor(r ->
            Thread.ofPlatform().daemon().name("nccl4j-gpu-watchdog").unstarted(r));

    static {
        THREAD.scheduleWithFixedDelay(KernelWatchdog::check, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }

    private KernelWatchdog() {
    }

    /** @param c a communicator whose work is watched from now until {@link #forget} */
    static void watch(GpuCollectives c) {
        WATCHED.add(c);
    }

    /** @param c a communicator being destroyed */
    static void forget(GpuCollectives c) {
        WATCHED.remove(c);
    }

    private static void check() {
        long now = System.nanoTime();
        for (GpuCollectives c : WATCHED) {
            try {
                c.failOverdue(now);
            } catch (RuntimeException e) {
                // A failed context or a communicator going away: its own calls report that.
                Log.info(Subsys.INIT, "cuda watchdog: could not check %s: %s", c, e.getMessage());
            }
        }
    }
}
