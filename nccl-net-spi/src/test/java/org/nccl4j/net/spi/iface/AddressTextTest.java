package org.nccl4j.net.spi.iface;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class AddressTextTest {
    @Test
    void ipv4WithPort() throws Exception {
        assertEquals("10.0.0.1<0>", AddressText.of(InetAddress.ofLiteral("10.0.0.1"), 0));
        assertEquals("127.0.0.1<5555>", AddressText.of(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 5555)));
    }

    @Test
    void ipv6IsShortened() throws Exception {
        assertEquals("::1", AddressText.host(InetAddress.ofLiteral("::1")));
        assertEquals("::", AddressText.host(InetAddress.ofLiteral("::")));
        assertEquals("2001:db8::1", AddressText.host(InetAddress.ofLiteral("2001:db8:0:0:0:0:0:1")));
        assertEquals("2001:db8:0:1:1:1:1:1", AddressText.host(InetAddress.ofLiteral("2001:db8:0:1:1:1:1:1")));
        assertEquals("2001:0:0:1::1", AddressText.host(InetAddress.ofLiteral("2001:0:0:1:0:0:0:1")));
        assertEquals("1::", AddressText.host(InetAddress.ofLiteral("1:0:0:0:0:0:0:0")));
    }

    @Test
    void linkLocalKeepsScope() throws Exception {
        Inet6Address ll = Inet6Address.getByAddress(null, InetAddress.ofLiteral("fe80::1").getAddress(), 3);
        assertEquals("fe80::1%3<0>", AddressText.of(ll, 0));
    }
}
