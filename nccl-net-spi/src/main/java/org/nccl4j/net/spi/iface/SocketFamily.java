package org.nccl4j.net.spi.iface;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/** The address family {@code NCCL_SOCKET_FAMILY} forces, or {@link #ANY}. */
public enum SocketFamily {
    /** No family forced: the first address found wins. */
    ANY,
    /** IPv4 only ({@code AF_INET}). */
    INET,
    /** IPv6 only ({@code AF_INET6}). */
    INET6;

    /**
     * Reads {@code NCCL_SOCKET_FAMILY} as NCCL does: exactly {@code AF_INET} or {@code AF_INET6}
     * force a family, anything else (or {@code null}) means {@link #ANY}.
     *
     * @param value the parameter's value, or {@code null}
     * @return the family
     */
    public static SocketFamily parse(String value) {
        if ("AF_INET".equals(value)) {
            return INET;
        }
        if ("AF_INET6".equals(value)) {
            return INET6;
        }
        return ANY;
    }

    /**
     * @param address an IPv4 or IPv6 address
     * @return the family of {@code address} ({@link #INET} or {@link #INET6})
     */
    public static SocketFamily of(InetAddress address) {
        return address instanceof Inet6Address ? INET6 : INET;
    }

    /**
     * @param address an address
     * @return whether this family admits {@code address}
     */
    public boolean admits(InetAddress address) {
        return switch (this) {
            case ANY -> address instanceof Inet4Address || address instanceof Inet6Address;
            case INET -> address instanceof Inet4Address;
            case INET6 -> address instanceof Inet6Address;
        };
    }

    /** @return NCCL's name for the family: {@code AF_INET}, {@code AF_INET6} or {@code any} */
    public String ncclName() {
        return switch (this) {
            case ANY -> "any";
            case INET -> "AF_INET";
            case INET6 -> "AF_INET6";
        };
    }
}
