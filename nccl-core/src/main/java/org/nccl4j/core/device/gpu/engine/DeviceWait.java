package org.nccl4j.core.device.gpu.engine;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * Waits for device work by polling (a GPU event cannot wake a Java thread), as CUDA's own
 * spin-then-yield scheduling does: spins while the kernel is likely to end soon (a parked
 * thread wakes tens of microseconds late), then yields, then parks in short steps. Bounded by a
 * deadline, and ends early once the communicator is aborted and the work still is not done.
 */
final class DeviceWait {
    private static final long SPIN_NANOS = 200_000;
    private static final long YIELD_NANOS = 2_000_000;
    private static final long PARK_NANOS = 20_000;

    private DeviceWait() {
    }

    /**
     * @param done       whether the work finished (e.g. an event query)
     * @param timeoutNanos the longest wait
     * @param aborted    the abort reason, or null while not aborted
     * @param what       the work, for messages
     * @return true when done; false when the deadline passed
     * @throws NcclException if the communicator was aborted before the work finished (after a
     *     grace period in which the aborted kernels end)
     */
    static boolean await(BooleanSupplier done, long timeoutNanos, Supplier<String> aborted, String what) {
        long start = System.nanoTime();
        long abortSeen = 0;
        while (!done.getAsBoolean()) {
            long now = System.nanoTime();
            if (now - start > timeoutNanos) {
                return false;
            }
            String reason = aborted.get();
            if (reason != null) {
                // The kernels see the abort flag within microseconds; give them a moment to end.
                if (abortSeen == 0) {
                    abortSeen = now;
                } else if (now - abortSeen > 1_000_000_000L) {
                    throw NcclException.of(Result.INVALID_USAGE, what + " interrupted: communicator " + reason,
                            "the communicator was aborted; create a new one");
                }
            }
            if (now - start < SPIN_NANOS) {
                Thread.onSpinWait();
            } else if (now - start < YIELD_NANOS) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(PARK_NANOS);
            }
        }
        return true;
    }
}
