package org.nccl4j.net.spi.iface;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Objects;

/**
 * One address of one network interface, as {@code getifaddrs()} reports it: an interface
 * with an IPv4 and an IPv6 address appears twice.
 *
 * @param name         interface name, e.g. {@code eth0} (a labelled IPv4 alias such as
 *                     {@code eth0:1} has its own name, as in {@code getifaddrs()})
 * @param index        the kernel's interface index ({@code if_nametoindex}), or -1 if unknown
 * @param address      the IPv4 or IPv6 address; a link-local IPv6 address carries the
 *                     interface as scope, other addresses carry none
 * @param prefixLength the network prefix length (netmask), 0 to 32 for IPv4, 0 to 128 for IPv6
 */
public record NetInterface(String name, int index, InetAddress address, int prefixLength) {
    /**
     * Validates the components.
     *
     * @throws NullPointerException     if {@code name} or {@code address} is null
     * @throws IllegalArgumentException if the prefix length does not fit the address family
     */
    public NetInterface {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(address, "address");
        int max = address instanceof Inet4Address ? 32 : 128;
        if (prefixLength < 0 || prefixLength > max) {
            throw new IllegalArgumentException("prefix length " + prefixLength + " out of range for " + address);
        }
    }

    /** @return {@link SocketFamily#INET} or {@link SocketFamily#INET6} */
    public SocketFamily family() {
        return SocketFamily.of(address);
    }

    /** @return the IPv6 scope id (the interface index for link-local addresses), 0 for IPv4 and unscoped addresses */
    public int scopeId() {
        return address instanceof Inet6Address v6 ? v6.getScopeId() : 0;
    }

    /** @return the address in NCCL's log form with port 0, e.g. {@code 10.0.0.1<0>} */
    public String ncclAddress() {
        return AddressText.of(address, 0);
    }

    /** @return a one-line description for diagnostics, e.g. {@code eth0 10.0.0.1/24 (index 2)} */
    public String describe() {
        return name + " " + AddressText.host(address) + "/" + prefixLength + " (index " + index + ")";
    }
}
