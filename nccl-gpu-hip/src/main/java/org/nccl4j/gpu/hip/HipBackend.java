package org.nccl4j.gpu.hip;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.nccl4j.Device;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.DeviceCollectives;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.core.device.DeviceMemory;
import org.nccl4j.core.device.GpuDescription;
import org.nccl4j.core.device.LocalDevice;
import org.nccl4j.core.device.gpu.engine.GpuCollectives;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.gpu.hip.codeobject.CodeObjectResource;
import org.nccl4j.gpu.hip.runtime.HipContext;
import org.nccl4j.gpu.hip.runtime.HipRuntime;

/**
 * AMD GPUs through the HIP runtime: the CUDA backend's engine ({@link GpuCollectives}: channel
 * connections, FIFOs, IPC between processes, the kernels' launches and the watchdog) over
 * {@link HipContext}, with the kernels' clang offload bundle as the module image (the runtime
 * picks the code object for the device's architecture, as it does for {@code hipcc --genco}
 * output). Not yet run on an AMD GPU: its provider leaves it out of the automatic choice.
 *
 * <p>Device choice: {@code NCCL4J_HIP_DEVICE} pins the ordinal; unset, the ranks opened in this
 * process take ordinals 0, 1, 2, ... modulo the device count. Two ranks of one GPU are refused
 * as RCCL refuses them unless {@code NCCL4J_SHARED_DEVICE=1}: then each rank gets an identity of
 * its own on the shared GPU ({@link LocalDevice#sharedGpu}), as on the CUDA backend.
 */
public final class HipBackend implements DeviceBackend {
    private static final AtomicInteger NEXT = new AtomicInteger();

    private final HipRuntime rt;
    private final Map<Integer, HipContext> contexts = new ConcurrentHashMap<>();
    private List<KfdTopology.Gpu> kfd;

    HipBackend(HipRuntime rt) {
        this.rt = rt;
    }

    @Override
    public String name() {
        return HipBackendProvider.NAME;
    }

    @Override
    public int deviceCount() {
        return rt.deviceCount();
    }

    @Override
    public LocalDevice open(Config config) {
        int count = rt.deviceCount();
        long pinned = config.integer(Params.HIP_DEVICE);
        if (pinned != -1 && (pinned < 0 || pinned >= count)) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "NCCL4J_HIP_DEVICE=" + pinned
                            + " is not an AMD GPU of this process: it sees " + count + " (0.." + (count - 1) + ")",
                    "set NCCL4J_HIP_DEVICE to a device ordinal below " + count + ", or unset it to take one per rank");
        }
        int dev = pinned >= 0 ? (int) pinned : Math.floorMod(NEXT.getAndIncrement(), count);
        String busId = rt.pciBusId(dev);
        if (config.integer(Params.SHARED_DEVICE) == 1) {
            return LocalDevice.sharedGpu(name(), dev, busId);
        }
        return LocalDevice.gpu(name(), dev, busId);
    }

    /**
     * {@inheritDoc} From KFD's topology ({@link KfdTopology}), read once: the GPU's architecture
     * and its XGMI links, for RCCL's dialect of the topology. A shared-device id is described as
     * its GPU.
     */
    @Override
    public Optional<GpuDescription> describeGpu(long busId) {
        return KfdTopology.describe(kfd(), busId, this::ordinal);
    }

    private synchronized List<KfdTopology.Gpu> kfd() {
        if (kfd == null) {
            try {
                kfd = KfdTopology.read(KfdTopology.ROOT);
            } catch (IOException e) {
                throw NcclException.of(Result.SYSTEM_ERROR, "cannot read " + KfdTopology.ROOT + ": " + e.getMessage(),
                        "check the amdgpu driver (its KFD topology) and the permissions of that folder");
            }
        }
        return kfd;
    }

    /** @return the HIP ordinal of a GPU by bus id, or -1 where this process does not see it */
    private int ordinal(String busId) {
        int n = rt.deviceCount();
        for (int d = 0; d < n; d++) {
            if (rt.pciBusId(d).equals(busId)) {
                return d;
            }
        }
        return -1;
    }

    /** {@inheritDoc} {@code hipMalloc} on the device. */
    @Override
    public Optional<DeviceMemory> allocate(LocalDevice device, long bytes) {
        HipContext ctx = context(device.index());
        return Optional.of(DeviceMemory.of(ctx.memAlloc(bytes), bytes, ctx::memFree));
    }

    @Override
    public DeviceCollectives connect(DeviceCommContext ctx) {
        LocalDevice d = ctx.device();
        return GpuCollectives.connect(context(d.index()), new Device(name(), d.index(), d.busIdText()), ctx,
                CodeObjectResource.bytes(), this::context);
    }

    private HipContext context(int device) {
        return contexts.computeIfAbsent(device, d -> HipContext.open(rt, d));
    }
}
