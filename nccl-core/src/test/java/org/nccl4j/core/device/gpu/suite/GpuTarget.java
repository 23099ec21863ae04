package org.nccl4j.core.device.gpu.suite;

import org.nccl4j.core.device.DeviceBackendProvider;
import org.nccl4j.core.device.DeviceUnavailableException;
import org.nccl4j.core.device.gpu.GpuRuntime;

/**
 * A GPU backend under the GPU suites: each backend module's tests run the same suites
 * ({@link CollectivesGpuSuite}, {@link SendRecvGpuSuite}, {@link TransportsGpuSuite}) with its
 * target, so the CUDA backend's GPU tests are the HIP backend's too.
 *
 * @param backend     the backend's name, as {@code NCCL4J_DEVICE} names it
 * @param deviceParam the parameter that pins a rank's GPU ordinal ({@code NCCL4J_CUDA_DEVICE}, {@code NCCL4J_HIP_DEVICE})
 * @param unusable    why the backend cannot run here (no runtime, no GPU), or {@code null} where it can
 * @param runtime     the runtime on a GPU, for memory and streams made outside nccl4j
 * @param gdrPlugin   the file name of nccl-net-ext's test plugin that takes this backend's memory
 *                    (GPU Direct RDMA without an RDMA NIC), or {@code null} where none is built
 */
public record GpuTarget(String backend, String deviceParam, String unusable, Runtime runtime, String gdrPlugin) {
    /** Opens a backend's runtime on one GPU. */
    @FunctionalInterface
    public interface Runtime {
        /**
         * @param device a GPU ordinal
         * @return the runtime on that GPU
         * @throws DeviceUnavailableException where the runtime cannot be loaded
         */
        GpuRuntime open(int device) throws DeviceUnavailableException;
    }

    /**
     * @param provider a backend's provider
     * @return why its backend cannot be created here, or {@code null} where it can
     */
    public static String whyUnusable(DeviceBackendProvider provider) {
        try {
            provider.create();
            return null;
        } catch (Exception e) {
            return e.getMessage();
        }
    }
}
