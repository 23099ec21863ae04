package org.nccl4j.gpu.cuda;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.GpuDescription;
import org.nccl4j.core.device.LocalDevice;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.device.DeviceCollectives;
import org.nccl4j.core.device.DeviceMemory;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.Device;
import org.nccl4j.core.device.gpu.engine.GpuCollectives;
import org.nccl4j.gpu.cuda.fatbin.FatbinResource;
import org.nccl4j.gpu.cuda.driver.CudaContext;
import org.nccl4j.gpu.cuda.driver.CudaDriver;

/**
 * The CUDA backend: a rank's device is a CUDA device of this host, identified by its PCI bus id
 * as NCCL identifies GPUs, and its collectives are nccl4j's kernels on that GPU
 * ({@link GpuCollectives}).
 *
 * <p>Device choice: {@code NCCL4J_CUDA_DEVICE} pins the ordinal; unset, the ranks opened in this
 * process take ordinals 0, 1, 2, ... modulo the device count. Two ranks of one GPU are refused
 * as NCCL refuses them ("Duplicate GPU") unless {@code NCCL4J_SHARED_DEVICE=1}: then each rank
 * gets an identity of its own on the shared GPU ({@link LocalDevice#sharedGpu}) and its own streams.
 */
public final class CudaBackend implements DeviceBackend {
    /** The backend's name, as {@code NCCL4J_DEVICE} names it. */
    public static final String NAME = "cuda";
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
        int dev = pinned(config.integer(Params.CUDA_DEVICE), driver.deviceCount());
        if (dev < 0) {
            dev = Math.floorMod(NEXT.getAndIncrement(), driver.deviceCount());
        }
        String busId = driver.pciBusId(dev);
        if (config.integer(Params.SHARED_DEVICE) == 1) {
            return LocalDevice.sharedGpu(NAME, dev, busId);
        }
        return LocalDevice.gpu(NAME, dev, busId);
    }

    /**
     * {@inheritDoc} A shared-device id, of any process, is described as its GPU (the
     * description's bus id is then the GPU's, and detection places the rank beside it).
     */
    @Override
    public Optional<GpuDescription> describeGpu(long busId) {
        return GpuTopology.describe(driver, busId);
    }

    /** {@inheritDoc} {@code cuMemAlloc} in the device's primary context. */
    @Override
    public Optional<DeviceMemory> allocate(LocalDevice device, long bytes) {
        CudaContext ctx = driver.primaryContext(device.index());
        return Optional.of(DeviceMemory.of(ctx.memAlloc(bytes), bytes, ctx::memFree));
    }

    @Override
    public DeviceCollectives connect(DeviceCommContext ctx) {
        LocalDevice d = ctx.device();
        return GpuCollectives.connect(driver.primaryContext(d.index()), new Device(NAME, d.index(), d.busIdText()), ctx,
                FatbinResource.bytes(), driver::primaryContext);
    }

    /**
     * @param value {@code NCCL4J_CUDA_DEVICE}, -1 when unset
     * @param count devices seen
     * @return the pinned ordinal, or -1
     * @throws NcclException with {@link Result#INVALID_ARGUMENT} for a value that is no visible device
     */
    static int pinned(long value, int count) {
        if (value == -1) {
            return -1;
        }
        if (value >= 0 && value < count) {
            return (int) value;
        }
        throw NcclException.of(Result.INVALID_ARGUMENT,
                "NCCL4J_CUDA_DEVICE=" + value + " is not a CUDA device of this process: it sees " + count + " (0.."
                        + (count - 1) + ")",
                "set NCCL4J_CUDA_DEVICE to a device ordinal below " + count + ", or unset it to take one per rank");
    }
}
