package org.nccl4j.core.device.gpu.suite;

import org.nccl4j.core.device.DeviceUnavailableException;
import org.nccl4j.core.device.gpu.GpuRuntime;

/**
 * A GPU backend under the GPU suites: each backend module's tests run the same suites
 * ({@link CollectivesGpuSuite}, {@link SendRecvGpuSuite}, {@link TransportsGpuSuite}) with its
 * target, so the CUDA backend's GPU tests are the HIP backend's too.
 */
public interface GpuTarget {
    /** @return the backend's name, as {@code NCCL4J_DEVICE} names it */
    String backend();

    /** @return the parameter that pins a rank's GPU ordinal ({@code NCCL4J_CUDA_DEVICE}, {@code NCCL4J_HIP_DEVICE}) */
    String deviceParam();

    /** @return why the backend cannot run here (no runtime, no GPU), or {@code null} where it can */
    String unusable();

    /**
     * @param device a GPU ordinal
     * @return the runtime on that GPU, for memory and streams made outside nccl4j
     * @throws DeviceUnavailableException where the runtime cannot be loaded
     */
    GpuRuntime runtime(int device) throws DeviceUnavailableException;

    /**
     * @return the file name of nccl-net-ext's test plugin that takes this backend's memory (GPU
     *     Direct RDMA without an RDMA NIC), or {@code null} where none is built
     */
    String gdrPlugin();
}
