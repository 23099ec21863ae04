/**
 * nccl4j's engine: parameters, debug log, bootstrap, initNet, topology, communicator init, the
 * host engine, device backends and the local launcher.
 */
module org.nccl4j.core {
    requires transitive org.nccl4j.api;
    requires transitive org.nccl4j.net.spi;

    // Applications need only org.nccl4j.api (Nccl finds this engine through ServiceLoader). A
    // device backend module implements the device SPI, whose signatures use param.Config, and
    // logs through NCCL's debug log; its plans name the connector protocols (proto), whose line
    // layouts a backend's kernels write (device.kernel: the kernels' names, shared by the CUDA
    // and HIP backends, and an ELF symbol reader); its SHM connections live in /dev/shm segments
    // (shm); its NET connections are the engine's, in memory it allocates, laid out as conn says.
    // The GPU backends share one engine over a runtime interface (device.gpu, device.gpu.engine).
    // The rest is the engine's own; the examples CLI and the benchmarks reach it on the class path.
    exports org.nccl4j.core.device;
    exports org.nccl4j.core.device.kernel;
    exports org.nccl4j.core.device.gpu;
    exports org.nccl4j.core.device.gpu.engine;
    exports org.nccl4j.core.param;
    exports org.nccl4j.core.proto;
    exports org.nccl4j.core.debug;
    exports org.nccl4j.core.shm;
    exports org.nccl4j.core.conn;

    uses org.nccl4j.net.spi.NetProvider;
    uses org.nccl4j.core.device.DeviceBackendProvider;

    provides org.nccl4j.spi.NcclRuntime with org.nccl4j.core.CoreRuntime;
    provides org.nccl4j.core.device.DeviceBackendProvider with org.nccl4j.core.device.HostBackendProvider;
}
