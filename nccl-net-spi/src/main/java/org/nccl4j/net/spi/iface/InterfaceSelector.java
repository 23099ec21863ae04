package org.nccl4j.net.spi.iface;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * NCCL's interface search ({@code ncclFindInterfaces}, {@code findInterfaces},
 * {@code findInterfaceMatchSubnet}).
 *
 * <p>If {@code NCCL_SOCKET_IFNAME} is longer than one character, only the interfaces it
 * matches are used ("find or fail"; a one-character value is ignored, as in NCCL). Otherwise
 * the first of these steps that finds anything wins: names starting with {@code ib}; (if
 * {@code NCCL_COMM_ID} is set) the interface in the same subnet as its address;
 * {@code ^docker,lo}; {@code docker}; {@code lo}.
 *
 * <p>Within a step, interface addresses are walked in {@code getifaddrs()} order (see
 * {@link #systemInterfaces()}); addresses of the wrong family and the IPv6 loopback {@code ::1}
 * are skipped, the first address of each interface name is kept, and the walk stops at
 * {@code maxIfs}. The methods taking a list of {@link NetInterface}s are pure.
 */
public final class InterfaceSelector {
    /** Most interfaces the Socket net uses ({@code MAX_IFS}). */
    public static final int MAX_IFS = 16;
    /** Interface name buffer size in NCCL ({@code MAX_IF_NAME_SIZE}); longer names are cut to it. */
    public static final int MAX_IF_NAME_SIZE = 16;

    private InterfaceSelector() {
    }

    /**
     * Searches the host's interfaces.
     *
     * @param request the user's settings and the caller's limit
     * @return the selection, with its reason and every address seen
     * @throws SocketException if the interfaces cannot be listed
     */
    public static InterfaceSelection select(SelectionRequest request) throws SocketException {
        return select(request, systemInterfaces());
    }

    /**
     * Searches a given list of interface addresses (pure).
     *
     * @param request the user's settings and the caller's limit
     * @param seen    interface addresses in {@code getifaddrs()} order
     * @return the selection, with its reason
     */
    public static InterfaceSelection select(SelectionRequest request, List<NetInterface> seen) {
        String ifname = request.socketIfname();
        SocketFamily family = request.family();
        int maxIfs = request.maxIfs();
        String familyNote = family == SocketFamily.ANY ? "" : " with NCCL_SOCKET_FAMILY=" + family.ncclName();
        if (ifname != null && ifname.length() > 1) {
            List<NetInterface> found = findInterfaces(NameFilter.parse(ifname), family, maxIfs, seen);
            String reason = found.isEmpty()
                    ? "NCCL_SOCKET_IFNAME=" + ifname + familyNote + " matched no interface"
                    : "NCCL_SOCKET_IFNAME=" + ifname + familyNote + " selected " + names(found);
            return new InterfaceSelection(found, reason, seen);
        }
        StringBuilder why = new StringBuilder();
        if (ifname != null && !ifname.isEmpty()) {
            why.append("NCCL_SOCKET_IFNAME=").append(ifname).append(" ignored (one character); ");
        }
        why.append("default search").append(familyNote).append(": ");
        List<NetInterface> found = findInterfaces(NameFilter.parse("ib"), family, maxIfs, seen);
        if (!found.isEmpty()) {
            return new InterfaceSelection(found, why + "picked ib* interface " + names(found), seen);
        }
        why.append("no ib* interface");
        InetAddress commId = request.commIdAddress();
        if (commId != null) {
            found = findInSubnet(commId, maxIfs, seen);
            String where = "the subnet of NCCL_COMM_ID address " + AddressText.host(commId);
            if (!found.isEmpty()) {
                return new InterfaceSelection(found, why + ", picked " + names(found) + " in " + where, seen);
            }
            why.append(", none in ").append(where);
        }
        found = findInterfaces(NameFilter.parse("^docker,lo"), family, maxIfs, seen);
        if (!found.isEmpty()) {
            return new InterfaceSelection(found, why + ", picked first non-docker non-lo interface " + names(found), seen);
        }
        why.append(", no non-docker non-lo interface");
        found = findInterfaces(NameFilter.parse("docker"), family, maxIfs, seen);
        if (!found.isEmpty()) {
            return new InterfaceSelection(found, why + ", picked docker* interface " + names(found), seen);
        }
        why.append(", no docker* interface");
        found = findInterfaces(NameFilter.parse("lo"), family, maxIfs, seen);
        if (!found.isEmpty()) {
            return new InterfaceSelection(found, why + ", picked lo* interface " + names(found), seen);
        }
        return new InterfaceSelection(found, why + ", no lo* interface: no usable interface", seen);
    }

    /**
     * NCCL's {@code findInterfaces}: the first address of each interface the filter keeps.
     *
     * @param filter the name filter
     * @param family the forced family, or {@link SocketFamily#ANY}
     * @param maxIfs most interfaces to return
     * @param seen   interface addresses in {@code getifaddrs()} order
     * @return the chosen interfaces, names cut to {@link #MAX_IF_NAME_SIZE}
     */
    public static List<NetInterface> findInterfaces(NameFilter filter, SocketFamily family, int maxIfs,
                                                    List<NetInterface> seen) {
        List<NetInterface> found = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        for (NetInterface ni : seen) {
            if (found.size() >= maxIfs) {
                break;
            }
            if (!family.admits(ni.address()) || ni.address().isLoopbackAddress() && ni.address() instanceof Inet6Address) {
                continue;
            }
            if (!filter.matches(ni.name())) {
                continue;
            }
            NetInterface chosen = truncated(ni);
            if (names.add(chosen.name())) {
                found.add(chosen);
            }
        }
        return found;
    }

    /**
     * NCCL's {@code findInterfaceMatchSubnet}: the first interface address in the same subnet
     * as {@code remote} (NCCL stops at the first match whatever {@code maxIfs} is). Neither the
     * forced family nor the {@code ::1} rule applies here, as in NCCL.
     *
     * @param remote the remote address, e.g. {@code NCCL_COMM_ID}'s
     * @param maxIfs most interfaces to return (at least 1)
     * @param seen   interface addresses in {@code getifaddrs()} order
     * @return the matching interface, or an empty list
     */
    public static List<NetInterface> findInSubnet(InetAddress remote, int maxIfs, List<NetInterface> seen) {
        for (NetInterface ni : seen) {
            if (maxIfs >= 1 && sameSubnet(ni, remote)) {
                return List.of(truncated(ni));
            }
        }
        return List.of();
    }

    /**
     * NCCL's {@code matchSubnet}: same family, equal address bits under the local netmask
     * and, for IPv6, equal scope ids (two link-local subnets on different links differ).
     *
     * @param local  a local interface address
     * @param remote a remote address
     * @return whether {@code remote} is in {@code local}'s subnet
     */
    public static boolean sameSubnet(NetInterface local, InetAddress remote) {
        if (local.family() != SocketFamily.of(remote)) {
            return false;
        }
        byte[] a = local.address().getAddress();
        byte[] b = remote.getAddress();
        int bits = local.prefixLength();
        for (int i = 0; i < a.length; i++) {
            int maskBits = Math.clamp(bits - 8L * i, 0, 8);
            int mask = (0xff00 >> maskBits) & 0xff;
            if (((a[i] ^ b[i]) & mask) != 0) {
                return false;
            }
        }
        int remoteScope = remote instanceof Inet6Address v6 ? v6.getScopeId() : 0;
        return local.scopeId() == remoteScope;
    }

    /**
     * Lists the host's interface addresses in {@code getifaddrs()} order: all IPv4 addresses
     * by interface index, then all IPv6 addresses by interface index, each interface's global
     * IPv6 addresses before its link-local ones (the kernel's netlink dump order, which glibc
     * keeps). Several IPv4 addresses of one interface keep the JDK's order. Interfaces that are
     * down are listed too, as in NCCL. Link-local IPv6 addresses are scoped to their interface,
     * other addresses unscoped, as {@code getifaddrs()} reports them.
     *
     * @return every IPv4 and IPv6 address of every interface
     * @throws SocketException if the interfaces cannot be listed
     */
    public static List<NetInterface> systemInterfaces() throws SocketException {
        List<NetInterface> all = new ArrayList<>();
        Set<String> dedup = new LinkedHashSet<>();
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            addAddresses(nif, nif.getIndex(), all, dedup);
            for (NetworkInterface sub : Collections.list(nif.getSubInterfaces())) {
                addAddresses(sub, sub.getIndex() >= 0 ? sub.getIndex() : nif.getIndex(), all, dedup);
            }
        }
        all.sort(Comparator.comparingInt((NetInterface ni) -> ni.address() instanceof Inet4Address ? 0 : 1)
                .thenComparingInt(NetInterface::index)
                .thenComparingInt(InterfaceSelector::ipv6ScopeRank));
        return List.copyOf(all);
    }

    private static void addAddresses(NetworkInterface nif, int index, List<NetInterface> out, Set<String> dedup)
            throws SocketException {
        for (InterfaceAddress ia : nif.getInterfaceAddresses()) {
            InetAddress address = ia.getAddress();
            if (!(address instanceof Inet4Address) && !(address instanceof Inet6Address)) {
                continue;
            }
            if (!dedup.add(nif.getName() + "/" + AddressText.host(address))) {
                continue;
            }
            int prefix = Math.clamp(ia.getNetworkPrefixLength(), 0, address instanceof Inet4Address ? 32 : 128);
            out.add(new NetInterface(nif.getName(), index, normalizedScope(address, nif), prefix));
        }
    }

    /** getifaddrs scopes only link-local IPv6 addresses; the JDK scopes every IPv6 address. */
    private static InetAddress normalizedScope(InetAddress address, NetworkInterface nif) {
        if (!(address instanceof Inet6Address)) {
            return address;
        }
        try {
            return address.isLinkLocalAddress()
                    ? Inet6Address.getByAddress(null, address.getAddress(), nif)
                    : InetAddress.getByAddress(address.getAddress());
        } catch (UnknownHostException e) {
            return address;
        }
    }

    /** The kernel keeps an interface's IPv6 addresses ordered by scope, widest first. */
    private static int ipv6ScopeRank(NetInterface ni) {
        InetAddress a = ni.address();
        if (a instanceof Inet4Address) {
            return 0;
        }
        if (a.isLinkLocalAddress()) {
            return 2;
        }
        return a.isSiteLocalAddress() ? 1 : 0;
    }

    private static NetInterface truncated(NetInterface ni) {
        return ni.name().length() <= MAX_IF_NAME_SIZE ? ni
                : new NetInterface(ni.name().substring(0, MAX_IF_NAME_SIZE), ni.index(), ni.address(), ni.prefixLength());
    }

    private static String names(List<NetInterface> found) {
        return found.stream().map(NetInterface::name).collect(Collectors.joining(", "));
    }
}
