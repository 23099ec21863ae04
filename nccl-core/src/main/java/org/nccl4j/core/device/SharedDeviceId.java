package org.nccl4j.core.device;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The identity of a rank on a shared GPU ({@code NCCL4J_SHARED_DEVICE=1}, on the CUDA and HIP
 * backends alike), which stands where NCCL has the GPU's bus id: bit 62 set (a synthetic id, as the host backend's), the low 28 bits
 * of the GPU's own bus id (NCCL's {@code busIdToInt64}: domain's last two digits, bus, device,
 * function), the process id and a per-process count. Any process can tell from it which GPU the
 * rank shares, as topology detection must: every rank builds the same topology from the ids
 * alone, whichever process it runs in.
 */
public final class SharedDeviceId {
    private static final long SYNTHETIC = 1L << 62;
    private static final long GPU_MASK = (1L << 28) - 1;
    private static final int GPU_SHIFT = 34;
    private static final int PID_SHIFT = 12;
    private static final long PID_MASK = (1L << 22) - 1;
    private static final long COUNT_MASK = (1L << 12) - 1;

    /** This process's shared ranks so far, of every backend. */
    private static final AtomicInteger COUNT = new AtomicInteger();

    private SharedDeviceId() {
    }

    /** @return the count for this process's next shared rank */
    static int nextCount() {
        return COUNT.getAndIncrement();
    }

    /**
     * @param gpuBusId the GPU's numeric bus id
     * @param pid      this process's id (Linux keeps them below 2^22)
     * @param count    this process's shared ranks so far
     * @return the rank's id
     */
    public static long of(long gpuBusId, long pid, int count) {
        return SYNTHETIC | (gpuBusId & GPU_MASK) << GPU_SHIFT | (pid & PID_MASK) << PID_SHIFT | (count & COUNT_MASK);
    }

    /** @return whether {@code id} is a shared-device id (not a GPU's own bus id) */
    public static boolean isShared(long id) {
        return (id & SYNTHETIC) != 0;
    }

    /** @return whether the shared-device id {@code id} is a rank of the GPU with this numeric bus id */
    public static boolean onGpu(long id, long gpuBusId) {
        return (id >>> GPU_SHIFT & GPU_MASK) == (gpuBusId & GPU_MASK);
    }
}
