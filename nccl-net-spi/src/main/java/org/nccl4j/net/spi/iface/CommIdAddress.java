package org.nccl4j.net.spi.iface;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;

/**
 * Parses {@code NCCL_COMM_ID}-style addresses ({@code GetSocketAddrFromString}):
 * {@code <ipv4>:<port>}, {@code <hostname>:<port>} (first resolved address) or
 * {@code [<ipv6>]:<port>}, where a link-local IPv6 address may name its interface,
 * {@code [fe80::1%eth0]:port}.
 */
public final class CommIdAddress {
    /** NCCL's message for a malformed value. */
    public static final String FORMAT_HINT =
            "Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>";

    private CommIdAddress() {
    }

    /**
     * @param text the value, e.g. {@code 10.0.0.1:5555}
     * @return the resolved socket address
     * @throws IllegalArgumentException if the text is malformed or the host does not resolve;
     *     the message starts with {@link #FORMAT_HINT}
     */
    public static InetSocketAddress parse(String text) {
        if (text == null || text.length() <= 1) {
            throw invalid(text, "empty");
        }
        return text.charAt(0) == '[' ? parseBracketed(text) : parseHostPort(text);
    }

    private static InetSocketAddress parseHostPort(String text) {
        int colon = text.indexOf(':');
        if (colon <= 0) {
            throw invalid(text, "no <host>:<port> pair");
        }
        String host = text.substring(0, colon);
        int port = port(text, text.substring(colon + 1));
        try {
            return new InetSocketAddress(InetAddress.getAllByName(host)[0], port);
        } catch (UnknownHostException e) {
            throw invalid(text, "cannot resolve " + host);
        }
    }

    private static InetSocketAddress parseBracketed(String text) {
        int close = text.indexOf(']');
        if (close < 0 || !text.startsWith(":", close + 1)) {
            throw invalid(text, "no [<ipv6>]:<port> pair");
        }
        String inside = text.substring(1, close);
        int percent = inside.indexOf('%');
        String literal = percent < 0 ? inside : inside.substring(0, percent);
        int port = port(text, text.substring(close + 2));
        InetAddress address;
        try {
            address = InetAddress.ofLiteral(literal);
        } catch (IllegalArgumentException e) {
            throw invalid(text, "not an IPv6 literal: " + literal);
        }
        if (!(address instanceof Inet6Address)) {
            throw invalid(text, "not an IPv6 literal: " + literal);
        }
        if (percent >= 0) {
            address = scoped(text, address.getAddress(), inside.substring(percent + 1));
        }
        return new InetSocketAddress(address, port);
    }

    /**
     * Scopes a link-local address by interface name (NCCL's {@code if_nametoindex}) or by index.
     * Unlike NCCL, an empty or unknown scope is refused rather than silently left unscoped.
     */
    private static InetAddress scoped(String text, byte[] bytes, String scope) {
        if (scope.isEmpty()) {
            throw invalid(text, "empty scope after '%'");
        }
        try {
            if (scope.chars().allMatch(Character::isDigit)) {
                return Inet6Address.getByAddress(null, bytes, Integer.parseInt(scope));
            }
            NetworkInterface nif = NetworkInterface.getByName(scope);
            if (nif == null) {
                throw invalid(text, "no network interface named '" + scope + "'");
            }
            return Inet6Address.getByAddress(null, bytes, nif.getIndex());
        } catch (SocketException | UnknownHostException | NumberFormatException e) {
            throw invalid(text, "cannot scope to " + scope + ": " + e.getMessage());
        }
    }

    private static int port(String text, String port) {
        try {
            int value = Integer.parseInt(port);
            if (value >= 1 && value <= 0xffff) {
                return value;
            }
        } catch (NumberFormatException ignored) {
            // reported below with the whole value
        }
        throw invalid(text, "bad port '" + port + "'");
    }

    private static IllegalArgumentException invalid(String text, String why) {
        return new IllegalArgumentException(FORMAT_HINT + " (got '" + text + "': " + why + ")");
    }
}
