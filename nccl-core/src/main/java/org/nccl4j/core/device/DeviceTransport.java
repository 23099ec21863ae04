package org.nccl4j.core.device;

/**
 * How a device rank reaches a peer's connection memory: NCCL's transports, in its order of
 * preference ({@code selectTransport} tries p2p, shm, net).
 */
public enum DeviceTransport {
    /** The peer's device memory, directly or through an IPC handle ({@code p2p.cc}). */
    P2P,
    /** Host memory in a {@code /dev/shm} segment both processes map and register with the driver ({@code shm.cc}). */
    SHM,
    /** Through the network plugin, staged in host memory by the proxy ({@code net.cc}). */
    NET
}
