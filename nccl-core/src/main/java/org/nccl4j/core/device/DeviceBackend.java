package org.nccl4j.core.device;

import java.util.Optional;
import org.nccl4j.core.param.Config;

/**
 * A device backend: what a rank's "device" is and how it is identified, and, for GPU backends,
 * the collectives their kernels run ({@link #connect}); the host backend's ranks run the host
 * engine's Java loops instead.
 */
public interface DeviceBackend {
    /** @return the backend's name */
    String name();

    /** @return how many devices this host has for this backend */
    int deviceCount();

    /**
     * Picks the device for a rank being initialised in this process.
     *
     * @param config the communicator's parameters
     * @return the device's identity
     */
    LocalDevice open(Config config);

    /**
     * Connects a communicator's channels for collectives run by this backend's own kernels; init
     * calls it after the topology search, instead of connecting the host engine.
     *
     * @param ctx the communicator being built
     * @return the communicator's device collectives, or {@code null} when this backend's ranks
     *     run the host engine on host memory (the host backend)
     */
    default DeviceCollectives connect(DeviceCommContext ctx) {
        return null;
    }

    /**
     * Describes a GPU of this host for topology detection (NCCL's {@code ncclTopoFillGpu}: NVML
     * and CUDA queries), by the bus id a rank of this host published in AllGather1. A backend
     * resolves the bus ids it handed out itself, including shared-device ids ({@code
     * NCCL4J_SHARED_DEVICE}): then the description's {@link GpuDescription#busId()} is the real
     * GPU's, not the rank's.
     *
     * @param busId a rank's NCCL int64 bus id
     * @return the GPU, or empty when this backend has no such GPU (the host backend: always)
     */
    default Optional<GpuDescription> describeGpu(long busId) {
        return Optional.empty();
    }

    /**
     * Device memory of a rank's device, for NCCL's GPU Direct RDMA probe
     * ({@code ncclGpuGdrSupport}, see {@link org.nccl4j.core.net.GdrProbe}).
     *
     * @param device the rank's device, from {@link #open}
     * @param bytes  how much
     * @return the memory, freed by closing it; empty for a backend without device memory (the host's)
     */
    default Optional<DeviceMemory> allocate(LocalDevice device, long bytes) {
        return Optional.empty();
    }
}
