/**
 * Which network interfaces a host uses for TCP traffic: NCCL's {@code findInterfaces}, shared
 * by nccl4j's bootstrap and by network plugins (the Socket net, the IB net's out-of-band
 * connection).
 *
 * <p>{@link org.nccl4j.net.spi.iface.InterfaceSelector} applies {@code NCCL_SOCKET_IFNAME},
 * {@code NCCL_SOCKET_FAMILY} and {@code NCCL_COMM_ID} to the host's interfaces and returns an
 * {@link org.nccl4j.net.spi.iface.InterfaceSelection} that says what it chose and why. The
 * matching itself is pure: it takes the interface list as data, so it can be tested (and
 * explained by a {@code doctor} command) without touching the host.
 * {@link org.nccl4j.net.spi.iface.NameFilter} is NCCL's list syntax, also used by
 * {@code NCCL_IB_HCA}.
 */
package org.nccl4j.net.spi.iface;
