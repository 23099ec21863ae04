package org.nccl4j.net.spi.iface;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InterfaceSelectorTest {
    /** A typical host in getifaddrs order: IPv4 by index, then IPv6 by index (global before link-local). */
    private static final List<NetInterface> HOST = List.of(
            v4("lo", 1, "127.0.0.1", 8),
            v4("eth0", 2, "10.0.0.5", 24),
            v4("eth1", 3, "192.168.7.5", 16),
            v4("docker0", 5, "172.17.0.1", 16),
            v6("lo", 1, "::1", 128, 0),
            v6("eth0", 2, "2001:db8::5", 64, 0),
            v6("eth0", 2, "fe80::5", 64, 2),
            v6("eth6only", 4, "2001:db8:6::9", 64, 0),
            v6("eth6only", 4, "fe80::9", 64, 4));

    private static NetInterface v4(String name, int index, String ip, int prefix) {
        return new NetInterface(name, index, InetAddress.ofLiteral(ip), prefix);
    }

    private static NetInterface v6(String name, int index, String ip, int prefix, int scope) {
        try {
            byte[] bytes = InetAddress.ofLiteral(ip).getAddress();
            return new NetInterface(name, index, Inet6Address.getByAddress(null, bytes, scope), prefix);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static SelectionRequest ifname(String value) {
        return new SelectionRequest(value, SocketFamily.ANY, null, InterfaceSelector.MAX_IFS);
    }

    private static List<String> names(InterfaceSelection s) {
        return s.interfaces().stream().map(NetInterface::name).toList();
    }

    @Test
    void userPrefixSelectsEveryMatchingInterfaceFirstAddressEach() {
        InterfaceSelection s = InterfaceSelector.select(ifname("eth"), HOST);
        assertEquals(List.of("eth0", "eth1", "eth6only"), names(s));
        assertEquals(InetAddress.ofLiteral("10.0.0.5"), s.interfaces().get(0).address(), "IPv4 first");
        assertEquals(InetAddress.ofLiteral("2001:db8:6::9"), s.interfaces().get(2).address(), "global IPv6 before link-local");
        assertEquals("NCCL_SOCKET_IFNAME=eth selected eth0, eth1, eth6only", s.reason());
        assertEquals(HOST, s.seen());
    }

    @Test
    void userExclusionAndExactForms() {
        assertEquals(List.of("lo", "eth1", "docker0", "eth6only"), names(InterfaceSelector.select(ifname("^eth0"), HOST)));
        assertEquals(List.of("lo", "eth0", "eth1", "docker0"), names(InterfaceSelector.select(ifname("^=eth6only"), HOST)));
        assertEquals(List.of("lo", "eth0", "eth1", "docker0", "eth6only"),
                names(InterfaceSelector.select(ifname("^=eth6"), HOST)), "^= excludes exactly, so eth6only stays");
        assertEquals(List.of("eth0"), names(InterfaceSelector.select(ifname("=eth0"), HOST)));
        assertEquals(List.of(), names(InterfaceSelector.select(ifname("=eth"), HOST)));
        assertEquals(List.of("lo", "eth0", "eth1", "docker0", "eth6only"),
                names(InterfaceSelector.select(ifname("^=eth"), HOST)));
    }

    @Test
    void portsInTheListAreIgnoredForInterfaces() {
        assertEquals(List.of("eth1"), names(InterfaceSelector.select(ifname("eth1:7"), HOST)));
    }

    @Test
    void userListFindsOrFailsWithoutFallingBack() {
        InterfaceSelection s = InterfaceSelector.select(ifname("nosuch"), HOST);
        assertTrue(s.isEmpty());
        assertEquals("NCCL_SOCKET_IFNAME=nosuch matched no interface", s.reason());
    }

    @Test
    void oneCharacterValueIsIgnored() {
        InterfaceSelection s = InterfaceSelector.select(ifname("e"), HOST);
        assertEquals(List.of("eth0", "eth1", "eth6only"), names(s));
        assertTrue(s.reason().startsWith("NCCL_SOCKET_IFNAME=e ignored (one character); default search: "), s.reason());
        // "lo" is two characters, so it is honoured.
        assertEquals(List.of("lo"), names(InterfaceSelector.select(ifname("lo"), HOST)));
    }

    @Test
    void familyFilter() {
        SelectionRequest inet6 = new SelectionRequest("eth", SocketFamily.INET6, null, 16);
        InterfaceSelection s = InterfaceSelector.select(inet6, HOST);
        assertEquals(List.of("eth0", "eth6only"), names(s));
        assertEquals(InetAddress.ofLiteral("2001:db8::5"), s.interfaces().getFirst().address());
        assertEquals("NCCL_SOCKET_IFNAME=eth with NCCL_SOCKET_FAMILY=AF_INET6 selected eth0, eth6only", s.reason());
        SelectionRequest inet = new SelectionRequest("eth", SocketFamily.INET, null, 16);
        assertEquals(List.of("eth0", "eth1"), names(InterfaceSelector.select(inet, HOST)));
    }

    @Test
    void ipv6LoopbackIsNeverChosen() {
        SelectionRequest loV6 = new SelectionRequest("lo", SocketFamily.INET6, null, 16);
        assertTrue(InterfaceSelector.select(loV6, HOST).isEmpty());
    }

    @Test
    void familyParsing() {
        assertEquals(SocketFamily.INET, SocketFamily.parse("AF_INET"));
        assertEquals(SocketFamily.INET6, SocketFamily.parse("AF_INET6"));
        assertEquals(SocketFamily.ANY, SocketFamily.parse("af_inet"));
        assertEquals(SocketFamily.ANY, SocketFamily.parse(null));
    }

    @Test
    void maxIfsLimitsTheResult() {
        SelectionRequest one = new SelectionRequest("eth", SocketFamily.ANY, null, 1);
        assertEquals(List.of("eth0"), names(InterfaceSelector.select(one, HOST)));
    }

    @Test
    void defaultSearchPrefersIb() {
        List<NetInterface> host = new ArrayList<>(HOST);
        host.add(3, v4("ib0", 7, "10.9.0.5", 16));
        InterfaceSelection s = InterfaceSelector.select(SelectionRequest.defaults(16), host);
        assertEquals(List.of("ib0"), names(s));
        assertEquals("default search: picked ib* interface ib0", s.reason());
    }

    @Test
    void defaultSearchSkipsDockerAndLo() {
        InterfaceSelection s = InterfaceSelector.select(SelectionRequest.defaults(16), HOST);
        assertEquals(List.of("eth0", "eth1", "eth6only"), names(s));
        assertEquals("default search: no ib* interface, picked first non-docker non-lo interface eth0, eth1, eth6only",
                s.reason());
    }

    @Test
    void defaultSearchFallsBackToDockerThenLo() {
        List<NetInterface> dockerAndLo = List.of(v4("lo", 1, "127.0.0.1", 8), v4("docker0", 5, "172.17.0.1", 16));
        InterfaceSelection s = InterfaceSelector.select(SelectionRequest.defaults(16), dockerAndLo);
        assertEquals(List.of("docker0"), names(s));
        assertEquals("default search: no ib* interface, no non-docker non-lo interface, picked docker* interface docker0",
                s.reason());
        InterfaceSelection lo = InterfaceSelector.select(SelectionRequest.defaults(16), dockerAndLo.subList(0, 1));
        assertEquals(List.of("lo"), names(lo));
        assertTrue(lo.reason().endsWith("no docker* interface, picked lo* interface lo"), lo.reason());
        InterfaceSelection none = InterfaceSelector.select(SelectionRequest.defaults(16), List.of());
        assertTrue(none.isEmpty());
        assertTrue(none.reason().endsWith("no usable interface"), none.reason());
    }

    @Test
    void defaultSearchUsesTheCommIdSubnetBeforeTheGenericStep() {
        SelectionRequest r = new SelectionRequest(null, SocketFamily.ANY, InetAddress.ofLiteral("192.168.200.1"), 16);
        InterfaceSelection s = InterfaceSelector.select(r, HOST);
        assertEquals(List.of("eth1"), names(s), "only the subnet match, even though eth0 comes first");
        assertEquals("default search: no ib* interface, picked eth1 in the subnet of NCCL_COMM_ID address 192.168.200.1",
                s.reason());
        SelectionRequest elsewhere = new SelectionRequest(null, SocketFamily.ANY, InetAddress.ofLiteral("8.8.8.8"), 16);
        InterfaceSelection fallback = InterfaceSelector.select(elsewhere, HOST);
        assertEquals(List.of("eth0", "eth1", "eth6only"), names(fallback));
        assertTrue(fallback.reason().contains("none in the subnet of NCCL_COMM_ID address 8.8.8.8"), fallback.reason());
    }

    @Test
    void ibStillWinsOverTheCommIdSubnet() {
        List<NetInterface> host = new ArrayList<>(HOST);
        host.add(v4("ib0", 7, "10.9.0.5", 16));
        SelectionRequest r = new SelectionRequest(null, SocketFamily.ANY, InetAddress.ofLiteral("192.168.200.1"), 16);
        assertEquals(List.of("ib0"), names(InterfaceSelector.select(r, host)));
    }

    @Test
    void ipv4SubnetMatchUsesTheLocalPrefix() {
        NetInterface eth = v4("eth0", 2, "10.0.0.5", 24);
        assertTrue(InterfaceSelector.sameSubnet(eth, InetAddress.ofLiteral("10.0.0.200")));
        assertFalse(InterfaceSelector.sameSubnet(eth, InetAddress.ofLiteral("10.0.1.5")));
        NetInterface odd = v4("eth0", 2, "10.0.0.5", 23);
        assertTrue(InterfaceSelector.sameSubnet(odd, InetAddress.ofLiteral("10.0.1.5")));
        assertFalse(InterfaceSelector.sameSubnet(odd, InetAddress.ofLiteral("10.0.2.5")));
        assertTrue(InterfaceSelector.sameSubnet(v4("x", 1, "1.2.3.4", 0), InetAddress.ofLiteral("9.9.9.9")));
        assertFalse(InterfaceSelector.sameSubnet(eth, InetAddress.ofLiteral("2001:db8::1")), "families differ");
    }

    @Test
    void ipv6SubnetMatchComparesPrefixAndScope() {
        NetInterface global = v6("eth0", 2, "2001:db8:1:2::5", 64, 0);
        assertTrue(InterfaceSelector.sameSubnet(global, InetAddress.ofLiteral("2001:db8:1:2:ffff::1")));
        assertFalse(InterfaceSelector.sameSubnet(global, InetAddress.ofLiteral("2001:db8:1:3::5")));
        assertFalse(InterfaceSelector.sameSubnet(global, InetAddress.ofLiteral("10.0.0.5")));
        NetInterface odd = v6("eth0", 2, "2001:db8:1:2::5", 63, 0);
        assertTrue(InterfaceSelector.sameSubnet(odd, InetAddress.ofLiteral("2001:db8:1:3::5")));
        NetInterface linkLocal = v6("eth0", 2, "fe80::5", 64, 2);
        assertTrue(InterfaceSelector.sameSubnet(linkLocal, v6("r", 0, "fe80::77", 64, 2).address()));
        assertFalse(InterfaceSelector.sameSubnet(linkLocal, v6("r", 0, "fe80::77", 64, 3).address()),
                "same prefix on another link");
        assertFalse(InterfaceSelector.sameSubnet(linkLocal, InetAddress.ofLiteral("fe80::77")), "unscoped remote");
    }

    @Test
    void ipv6CommIdPicksTheScopedLinkLocalInterface() {
        SelectionRequest r = new SelectionRequest(null, SocketFamily.ANY, v6("r", 0, "fe80::1234", 64, 4).address(), 16);
        InterfaceSelection s = InterfaceSelector.select(r, HOST);
        assertEquals(List.of("eth6only"), names(s));
        assertEquals("fe80::9%4", AddressText.host(s.interfaces().getFirst().address()));
    }

    @Test
    void longNamesAreCutAndDeduplicated() {
        List<NetInterface> host = List.of(v4("averyveryverylongname0", 2, "10.0.0.1", 8),
                v6("averyveryverylongname0", 2, "2001:db8::1", 64, 0));
        InterfaceSelection s = InterfaceSelector.select(ifname("avery"), host);
        assertEquals(List.of("averyveryverylon"), names(s));
        assertEquals(InterfaceSelector.MAX_IF_NAME_SIZE, names(s).getFirst().length());
    }

    @Test
    void requestFromParameters() {
        Map<String, String> params = Map.of("NCCL_SOCKET_IFNAME", "^lo", "NCCL_SOCKET_FAMILY", "AF_INET",
                "NCCL_COMM_ID", "10.0.0.9:4000");
        SelectionRequest r = SelectionRequest.fromParams(params::get, 16);
        assertEquals("^lo", r.socketIfname());
        assertEquals(SocketFamily.INET, r.family());
        assertEquals(InetAddress.ofLiteral("10.0.0.9"), r.commIdAddress());
        assertThrows(IllegalArgumentException.class,
                () -> SelectionRequest.fromParams(Map.of("NCCL_COMM_ID", "bogus")::get, 16));
        assertThrows(IllegalArgumentException.class, () -> SelectionRequest.defaults(0));
    }

    @Test
    void ncclListAndReport() {
        InterfaceSelection s = InterfaceSelector.select(ifname("eth0,lo"), HOST);
        assertEquals("[0]lo:127.0.0.1<0> [1]eth0:10.0.0.5<0>", s.ncclList());
        String report = s.report();
        assertTrue(report.startsWith("NCCL_SOCKET_IFNAME=eth0,lo selected lo, eth0\nchosen: [0]lo"), report);
        assertTrue(report.contains("\n  eth0 fe80::5%2/64 (index 2)"), report);
    }

    @Test
    void systemInterfacesAreListedInGetifaddrsOrder() throws Exception {
        List<NetInterface> all = InterfaceSelector.systemInterfaces();
        assertNotNull(all);
        boolean sawV6 = false;
        for (NetInterface ni : all) {
            sawV6 |= ni.family() == SocketFamily.INET6;
            assertFalse(sawV6 && ni.family() == SocketFamily.INET, "IPv4 after IPv6 in " + all);
            if (ni.family() == SocketFamily.INET6 && !ni.address().isLinkLocalAddress()) {
                assertEquals(0, ni.scopeId(), ni.describe());
            }
        }
        // The loopback interface exists on every Linux host and is the last default choice.
        assertTrue(all.stream().anyMatch(ni -> ni.name().equals("lo")), all.toString());
        InterfaceSelection lo = InterfaceSelector.select(ifname("lo"));
        assertEquals(List.of("lo"), names(lo));
    }
}
