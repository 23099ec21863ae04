package org.nccl4j.net.socket;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.nccl4j.net.spi.NetException;

/**
 * What {@code listen} writes for the peer's {@code connect}: NCCL's
 * {@code ncclSocketHandle} (the listener's address, and the listener's {@code nSocks} and
 * {@code nThreads}: the receiver decides) behind a magic number so that garbage is refused.
 *
 * <p>Layout, little-endian: {@code u64 magic}; 28 bytes of Linux {@code sockaddr_in} /
 * {@code sockaddr_in6} (family in host order, port in network order, as NCCL); {@code i32 nSocks};
 * {@code i32 nThreads}. {@value #SIZE} bytes, within v4's 64-byte handle.
 *
 * @param address  the listener's address and port
 * @param nSocks   data connections to open
 * @param nThreads event loops the listener spreads them over
 */
record SocketHandle(InetSocketAddress address, int nSocks, int nThreads) {
    /** NCCL's socket magic ({@code NCCL_SOCKET_MAGIC}, from its 2.16 wire format). */
    static final long MAGIC = 0x564ab9f2fc4b9d6cL;
    /** Bytes used in the handle. */
    static final int SIZE = 44;
    private static final short AF_INET = 2;
    private static final short AF_INET6 = 10;
    private static final int SOCKADDR = 8;

    /**
     * Writes the handle into the start of {@code out} and zeroes the rest.
     *
     * @param out the handle buffer, at least {@value #SIZE} bytes
     * @throws NetException if {@code out} is too small
     */
    void writeTo(byte[] out) throws NetException {
        if (out == null || out.length < SIZE) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT, "NET/Socket : handle buffer of "
                    + (out == null ? "null" : out.length + " bytes") + " is smaller than " + SIZE + " bytes");
        }
        Arrays.fill(out, (byte) 0);
        ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(0, MAGIC);
        InetAddress ip = address.getAddress();
        b.putShort(SOCKADDR, ip instanceof Inet6Address ? AF_INET6 : AF_INET);
        b.order(ByteOrder.BIG_ENDIAN).putShort(SOCKADDR + 2, (short) address.getPort()).order(ByteOrder.LITTLE_ENDIAN);
        if (ip instanceof Inet6Address v6) {
            b.put(SOCKADDR + 8, v6.getAddress());
            b.putInt(SOCKADDR + 24, v6.getScopeId());
        } else {
            b.put(SOCKADDR + 4, ip.getAddress());
        }
        b.putInt(36, nSocks);
        b.putInt(40, nThreads);
    }

    /**
     * Reads a handle written by {@link #writeTo}.
     *
     * @param in the handle bytes from the peer
     * @return the handle
     * @throws NetException {@code INVALID_ARGUMENT} if the bytes are not a Socket handle
     */
    static SocketHandle parse(byte[] in) throws NetException {
        if (in == null || in.length < SIZE) {
            throw invalid("is " + (in == null ? "null" : in.length + " bytes long") + ", need " + SIZE);
        }
        ByteBuffer b = ByteBuffer.wrap(in).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getLong(0) != MAGIC) {
            throw invalid("has no Socket magic (got 0x" + Long.toHexString(b.getLong(0)) + ")");
        }
        short family = b.getShort(SOCKADDR);
        int port = b.order(ByteOrder.BIG_ENDIAN).getShort(SOCKADDR + 2) & 0xffff;
        b.order(ByteOrder.LITTLE_ENDIAN);
        InetAddress ip;
        try {
            if (family == AF_INET) {
                ip = InetAddress.getByAddress(Arrays.copyOfRange(in, SOCKADDR + 4, SOCKADDR + 8));
            } else if (family == AF_INET6) {
                ip = Inet6Address.getByAddress(null, Arrays.copyOfRange(in, SOCKADDR + 8, SOCKADDR + 24),
                        b.getInt(SOCKADDR + 24));
            } else {
                throw invalid("has unknown address family " + family);
            }
        } catch (UnknownHostException e) {
            throw invalid("holds a malformed address");
        }
        int nSocks = b.getInt(36);
        int nThreads = b.getInt(40);
        if (port == 0 || nSocks < 0 || nSocks > SocketTuning.MAX_SOCKETS || nThreads < 0
                || nThreads > SocketTuning.MAX_THREADS || nSocks > 0 && nThreads == 0) {
            throw invalid("is inconsistent (port " + port + ", nSocks " + nSocks + ", nThreads " + nThreads + ")");
        }
        if (ip instanceof Inet4Address || ip instanceof Inet6Address) {
            return new SocketHandle(new InetSocketAddress(ip, port), nSocks, nThreads);
        }
        throw invalid("holds a malformed address");
    }

    private static NetException invalid(String why) {
        return new NetException(NetException.Kind.INVALID_ARGUMENT, "NET/Socket : connection handle " + why);
    }
}
