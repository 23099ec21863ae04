package org.nccl4j.gpu.cuda;

import java.util.concurrent.atomic.AtomicInteger;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.LocalDevice;
import org.nccl4j.core.param.Config;
import org.nccl4j.gpu.cuda.driver.CudaDriver;

/**
 * The CUDA backend: a rank's device is a CUDA device of this host, identified by its PCI bus id
 * as NCCL identifies GPUs. Collectives on the GPU are being built; today the backend is found,
 * explains itself in {@code nccl4j doctor}, and ships its kernels.
 *
 * <p>Device choice: {@code NCCL4J_CUDA_DEVICE} (system property {@code nccl4j.cuda.device})
 * pins the ordinal; it is read here directly until the parameter joins nccl-core's registry.
 * Unset, the ranks opened in this process take ordinals 0, 1, 2, ... modulo the device count.
 */
public final class CudaBackend implements DeviceBackend {
    /** The backend's name, as {@code NCCL4J_DEVICE} names it. */
    public static final String NAME = "cuda";
    static final String DEVICE_ENV = "NCCL4J_CUDA_DEVICE";
    static final String DEVICE_PROPERTY = "nccl4j.cuda.device";
    private static final AtomicInteger NEXT = new AtomicInteger();

    private final CudaDriver driver;

    CudaBackend(CudaDriver driver) {
        this.driver = driver;
    }

    /** @return the driver this backend runs on */
    public CudaDriver driver() {
        return driver;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int deviceCount() {
        return driver.deviceCount();
    }

    @Override
    public LocalDevice open(Config config) {
        int dev = pinned(System.getProperty(DEVICE_PROPERTY), System.getenv(DEVICE_ENV), driver.deviceCount());
        if (dev < 0) {
            dev = Math.floorMod(NEXT.getAndIncrement(), driver.deviceCount());
        }
        String busId = driver.pciBusId(dev);
        return new LocalDevice(NAME, dev, BusId.toInt64(busId), busId);
    }

    /**
     * @param property {@code -Dnccl4j.cuda.device}, or {@code null}
     * @param env      {@code NCCL4J_CUDA_DEVICE}, or {@code null}
     * @param count    devices seen
     * @return the pinned ordinal (the property wins), or -1 when neither is set
     * @throws NcclException with {@link Result#INVALID_ARGUMENT} for a value that is no visible device
     */
    static int pinned(String property, String env, int count) {
        String name = property != null ? "-D" + DEVICE_PROPERTY : DEVICE_ENV;
        String value = property != null ? property : env;
        if (value == null || value.isBlank()) {
            return -1;
        }
        try {
            int dev = Integer.parseInt(value.strip());
            if (dev >= 0 && dev < count) {
                return dev;
            }
        } catch (NumberFormatException e) {
            // reported below, as an out-of-range value is
        }
        throw NcclException.of(Result.INVALID_ARGUMENT,
                name + "=" + value + " is not a CUDA device of this process: it sees " + count + " (0.." + (count - 1)
                        + ")",
                "set " + name + " to a device ordinal below " + count + ", or unset it to take one per rank");
    }
}
