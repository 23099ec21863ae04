package org.nccl4j.net.spi.iface;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Addresses written the way NCCL's logs write them ({@code socketToString}): numeric host,
 * IPv6 in its short form (RFC 5952) with {@code %scope} for link-local addresses, and the
 * port in angle brackets, e.g. {@code 10.0.0.1<43215>} or {@code fe80::1%eth0<0>}.
 */
public final class AddressText {
    private AddressText() {
    }

    /**
     * @param address an address
     * @return its numeric form without port, IPv6 shortened
     */
    public static String host(InetAddress address) {
        if (!(address instanceof Inet6Address v6)) {
            return address.getHostAddress();
        }
        String text = shortIpv6(v6.getAddress());
        if (v6.getScopedInterface() != null) {
            return text + "%" + v6.getScopedInterface().getName();
        }
        return v6.getScopeId() != 0 ? text + "%" + v6.getScopeId() : text;
    }

    /**
     * @param address an address
     * @param port    a port
     * @return NCCL's {@code host<port>} form
     */
    public static String of(InetAddress address, int port) {
        return host(address) + "<" + port + ">";
    }

    /**
     * @param address a socket address (resolved)
     * @return NCCL's {@code host<port>} form
     */
    public static String of(InetSocketAddress address) {
        InetAddress host = address.getAddress();
        return host == null ? address.getHostString() + "<" + address.getPort() + ">" : of(host, address.getPort());
    }

    /** RFC 5952: lower-case hex, no leading zeros, the longest run (first if tied) of two or more zero groups as "::". */
    static String shortIpv6(byte[] bytes) {
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLen = 1;
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(groups[i]));
        }
        return sb.toString();
    }
}
