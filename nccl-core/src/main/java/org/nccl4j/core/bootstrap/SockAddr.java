package org.nccl4j.core.bootstrap;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * NCCL's 28-byte {@code union socketAddress} (Linux x86_64 layout), used in the unique id and in
 * every address the bootstrap sends.
 *
 * <pre>
 * IPv4: u16 family = 2 (little-endian, host order) | u16 port (big-endian) | 4 B address | 20 zero bytes
 * IPv6: u16 family = 10 (little-endian)            | u16 port (big-endian) | u32 flowinfo = 0
 *       | 16 B address | u32 scope id (little-endian)
 * </pre>
 */
final class SockAddr {
    /** Size of the encoded address ({@code sizeof(union socketAddress)}). */
    static final int BYTES = 28;
    /** Linux {@code AF_INET}. */
    static final int AF_INET = 2;
    /** Linux {@code AF_INET6}. */
    static final int AF_INET6 = 10;

    private SockAddr() {
    }

    /**
     * Writes the address at the buffer's position (advancing it by {@link #BYTES}).
     *
     * @param a   a resolved address
     * @param out where to write; its byte order is restored afterwards
     */
    static void encode(InetSocketAddress a, ByteBuffer out) {
        if (a == null || a.isUnresolved()) {
            throw new IllegalArgumentException("address " + a + " is not resolved");
        }
        ByteOrder saved = out.order();
        int start = out.position();
        InetAddress ip = a.getAddress();
        out.order(ByteOrder.LITTLE_ENDIAN).putShort((short) (ip instanceof Inet4Address ? AF_INET : AF_INET6));
        out.order(ByteOrder.BIG_ENDIAN).putShort((short) a.getPort());
        if (ip instanceof Inet4Address) {
            out.put(ip.getAddress());
        } else {
            Inet6Address ip6 = (Inet6Address) ip;
            out.putInt(0); // flowinfo
            out.put(ip6.getAddress());
            out.order(ByteOrder.LITTLE_ENDIAN).putInt(ip6.getScopeId());
        }
        while (out.position() < start + BYTES) {
            out.put((byte) 0);
        }
        out.order(saved);
    }

    /**
     * @param a a resolved address
     * @return its 28-byte encoding
     */
    static byte[] encode(InetSocketAddress a) {
        ByteBuffer b = ByteBuffer.allocate(BYTES);
        encode(a, b);
        return b.array();
    }

    /**
     * Reads an address at the buffer's position (advancing it by {@link #BYTES}).
     *
     * @param in where to read; its byte order is restored afterwards
     * @return the address
     * @throws IllegalArgumentException naming what is wrong: unknown family, port 0, non-zero padding
     */
    static InetSocketAddress decode(ByteBuffer in) {
        ByteOrder saved = in.order();
        try {
            int family = Short.toUnsignedInt(in.order(ByteOrder.LITTLE_ENDIAN).getShort());
            int port = Short.toUnsignedInt(in.order(ByteOrder.BIG_ENDIAN).getShort());
            InetAddress ip;
            if (family == AF_INET) {
                byte[] a4 = new byte[4];
                in.get(a4);
                for (int i = 0; i < 20; i++) {
                    if (in.get() != 0) {
                        throw new IllegalArgumentException("non-zero padding after the IPv4 address");
                    }
                }
                ip = InetAddress.getByAddress(a4);
            } else if (family == AF_INET6) {
                int flow = in.getInt();
                if (flow != 0) {
                    throw new IllegalArgumentException("non-zero IPv6 flow info " + flow);
                }
                byte[] a6 = new byte[16];
                in.get(a6);
                int scope = in.order(ByteOrder.LITTLE_ENDIAN).getInt();
                if (scope < 0) {
                    throw new IllegalArgumentException("IPv6 scope id " + Integer.toUnsignedString(scope) + " out of range");
                }
                ip = Inet6Address.getByAddress(null, a6, scope == 0 ? -1 : scope);
            } else {
                throw new IllegalArgumentException("unknown address family " + family
                        + " (expected " + AF_INET + " = AF_INET or " + AF_INET6 + " = AF_INET6)");
            }
            if (port == 0) {
                throw new IllegalArgumentException("port 0 in address " + ip.getHostAddress());
            }
            return new InetSocketAddress(ip, port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("bad address bytes: " + e.getMessage(), e);
        } finally {
            in.order(saved);
        }
    }

    /**
     * @param a an address
     * @return {@code ip:port}, IPv6 as {@code [ip]:port}, without the leading slash Java prints
     */
    static String text(InetSocketAddress a) {
        if (a == null) {
            return "?";
        }
        if (a.isUnresolved()) {
            return a.getHostString() + ":" + a.getPort();
        }
        InetAddress ip = a.getAddress();
        String h = ip.getHostAddress();
        return (ip instanceof Inet6Address ? "[" + h + "]" : h) + ":" + a.getPort();
    }
}
