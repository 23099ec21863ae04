/**
 * nccl4j's CUDA backend: the CUDA driver API through JavaCPP's presets, and the collective
 * kernels built by nvcc into one fatbin shipped in this jar. Found by the engine's device
 * backend selection with priority 100, before the host backend (1000).
 *
 * <p>Native access: {@code
 * --enable-native-access=org.nccl4j.gpu.cuda,org.nccl4j.net.spi,org.bytedeco.javacpp,org.bytedeco.cuda} (or
 * {@code ALL-UNNAMED} on the class path).
 */
module org.nccl4j.gpu.cuda {
    requires transitive org.nccl4j.core;
    requires org.bytedeco.cuda;
    requires org.bytedeco.javacpp;
    // nccl4j's natives are linux-x86_64's; naming the presets' native modules puts them in the
    // module graph (JavaCPP finds libjnicudart.so there) without --add-modules.
    requires org.bytedeco.cuda.linux.x86_64;
    requires org.bytedeco.javacpp.linux.x86_64;

    exports org.nccl4j.gpu.cuda;
    exports org.nccl4j.gpu.cuda.driver;

    provides org.nccl4j.core.device.DeviceBackendProvider with org.nccl4j.gpu.cuda.CudaBackendProvider;
}
