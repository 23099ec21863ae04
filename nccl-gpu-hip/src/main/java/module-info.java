/**
 * nccl4j's HIP backend (AMD GPUs, ROCm): the HIP runtime ({@code libamdhip64}) through
 * java.lang.foreign, and the CUDA backend's collective kernels built by hipcc into AMD GPU code
 * objects shipped in this jar. Found by the engine's device backend selection with priority 200,
 * after the CUDA backend (100) and before the host backend (1000).
 *
 * <p>Native access: {@code --enable-native-access=org.nccl4j.gpu.hip,org.nccl4j.net.spi} (or
 * {@code ALL-UNNAMED} on the class path).
 */
module org.nccl4j.gpu.hip {
    requires transitive org.nccl4j.core;

    exports org.nccl4j.gpu.hip;
    exports org.nccl4j.gpu.hip.runtime;
    exports org.nccl4j.gpu.hip.codeobject;

    provides org.nccl4j.core.device.DeviceBackendProvider with org.nccl4j.gpu.hip.HipBackendProvider;
}
