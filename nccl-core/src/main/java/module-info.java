/**
 * nccl4j's engine: parameters, debug log, bootstrap, initNet, communicator init, device backends
 * and the local launcher.
 */
module org.nccl4j.core {
    requires transitive org.nccl4j.api;
    requires transitive org.nccl4j.net.spi;
    // The host backend's reduction kernels (org.nccl4j.core.reduce) use the Vector API where the
    // JVM has it (--add-modules jdk.incubator.vector); without it Reducers runs the plain loops.
    requires static jdk.incubator.vector;

    exports org.nccl4j.core;
    exports org.nccl4j.core.bootstrap;
    exports org.nccl4j.core.comm;
    exports org.nccl4j.core.debug;
    exports org.nccl4j.core.device;
    exports org.nccl4j.core.diag;
    exports org.nccl4j.core.host;
    exports org.nccl4j.core.init;
    exports org.nccl4j.core.launch;
    exports org.nccl4j.core.net;
    exports org.nccl4j.core.param;
    exports org.nccl4j.core.enqueue;
    exports org.nccl4j.core.kernel;
    exports org.nccl4j.core.proxy;
    exports org.nccl4j.core.reduce;
    exports org.nccl4j.core.stream;
    exports org.nccl4j.core.topo.detection;
    exports org.nccl4j.core.topo.xml;
    exports org.nccl4j.core.topo.system;
    exports org.nccl4j.core.topo.paths;
    exports org.nccl4j.core.topo.search;
    exports org.nccl4j.core.topo.sim;
    exports org.nccl4j.core.topo.connect;
    exports org.nccl4j.core.topo.tuning;
    exports org.nccl4j.core.transport;
    exports org.nccl4j.core.wait;

    uses org.nccl4j.net.spi.NetProvider;
    uses org.nccl4j.core.device.DeviceBackendProvider;

    provides org.nccl4j.spi.NcclRuntime with org.nccl4j.core.CoreRuntime;
    provides org.nccl4j.core.device.DeviceBackendProvider with org.nccl4j.core.device.HostBackendProvider;
}
