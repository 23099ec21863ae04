package org.nccl4j.net.socket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;

class SocketHandleTest {
    @Test
    void ipv4RoundTripInNcclsSockaddrLayout() throws Exception {
        SocketHandle h = new SocketHandle(new InetSocketAddress(InetAddress.ofLiteral("10.1.2.3"), 0x1234), 4, 2);
        byte[] bytes = new byte[Net.HANDLE_MAXSIZE];
        bytes[100] = 7;
        h.writeTo(bytes);
        assertEquals(0, bytes[100], "the rest of the handle is zeroed");
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(SocketHandle.MAGIC, b.getLong(0));
        assertEquals(2, b.getShort(8), "AF_INET, host order");
        assertEquals(0x12, bytes[10] & 0xff, "port, network order");
        assertEquals(0x34, bytes[11] & 0xff);
        assertEquals(10, bytes[12]);
        assertEquals(4, b.getInt(36));
        assertEquals(2, b.getInt(40));
        assertEquals(h, SocketHandle.parse(bytes));
    }

    @Test
    void ipv6RoundTripKeepsScope() throws Exception {
        InetAddress ll = Inet6Address.getByAddress(null, InetAddress.ofLiteral("fe80::1").getAddress(), 3);
        SocketHandle h = new SocketHandle(new InetSocketAddress(ll, 9), 0, 0);
        byte[] bytes = new byte[64];
        h.writeTo(bytes);
        assertEquals(10, bytes[8], "AF_INET6");
        SocketHandle back = SocketHandle.parse(bytes);
        assertEquals(3, ((Inet6Address) back.address().getAddress()).getScopeId());
        assertEquals(h.address(), back.address());
    }

    @Test
    void garbageIsRefused() throws Exception {
        NetException e = assertThrows(NetException.class, () -> SocketHandle.parse(new byte[128]));
        assertEquals(NetException.Kind.INVALID_ARGUMENT, e.kind());
        assertTrue(e.getMessage().contains("magic"), e.getMessage());
        assertThrows(NetException.class, () -> SocketHandle.parse(new byte[10]));
        byte[] bytes = new byte[64];
        new SocketHandle(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 5), 4, 2).writeTo(bytes);
        bytes[36] = 100;
        assertThrows(NetException.class, () -> SocketHandle.parse(bytes), "nSocks above 64");
        assertThrows(NetException.class, () -> new SocketHandle(new InetSocketAddress(5), 0, 0).writeTo(new byte[8]));
    }
}
