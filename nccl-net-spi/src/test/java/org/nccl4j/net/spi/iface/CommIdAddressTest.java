package org.nccl4j.net.spi.iface;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class CommIdAddressTest {
    @Test
    void ipv4AndPort() {
        InetSocketAddress a = CommIdAddress.parse("10.1.2.3:5555");
        assertEquals(InetAddress.ofLiteral("10.1.2.3"), a.getAddress());
        assertEquals(5555, a.getPort());
    }

    @Test
    void bracketedIpv6() {
        InetSocketAddress a = CommIdAddress.parse("[2001:db8::7]:1234");
        assertEquals(InetAddress.ofLiteral("2001:db8::7"), a.getAddress());
        assertEquals(1234, a.getPort());
        assertEquals(0, ((Inet6Address) a.getAddress()).getScopeId());
    }

    @Test
    void linkLocalScopes() {
        InetSocketAddress a = CommIdAddress.parse("[fe80::1%3]:99");
        assertInstanceOf(Inet6Address.class, a.getAddress());
        assertEquals(3, ((Inet6Address) a.getAddress()).getScopeId());
        // NCCL leaves an unknown interface unscoped; we refuse it so the mistake is visible.
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> CommIdAddress.parse("[fe80::1%nosuchif0]:99"));
        assertTrue(e.getMessage().contains("no network interface named 'nosuchif0'"), e.getMessage());
    }

    @Test
    void hostnameResolves() {
        assertTrue(CommIdAddress.parse("localhost:80").getAddress().isLoopbackAddress());
    }

    @Test
    void malformedValuesAreRefusedWithNcclsHint() {
        for (String bad : new String[] {"x", "10.0.0.1", "10.0.0.1:", "10.0.0.1:70000", "[::1", "[::1]5",
                "[10.0.0.1]:5", "[zz::1]:5"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CommIdAddress.parse(bad), bad);
            assertTrue(e.getMessage().startsWith(CommIdAddress.FORMAT_HINT), e.getMessage());
        }
    }
}
