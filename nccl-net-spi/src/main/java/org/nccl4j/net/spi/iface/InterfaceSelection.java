package org.nccl4j.net.spi.iface;

import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * The outcome of an interface search, able to explain itself.
 *
 * @param interfaces the chosen interfaces, in order (device 0 first); empty if none fit
 * @param reason     why these were chosen, in words, e.g.
 *                   {@code NCCL_SOCKET_IFNAME=eth selected eth0}
 * @param seen       every interface address the search looked at, in enumeration order
 */
public record InterfaceSelection(List<NetInterface> interfaces, String reason, List<NetInterface> seen) {
    /**
     * Copies the lists.
     *
     * @throws NullPointerException if any component is null
     */
    public InterfaceSelection {
        interfaces = List.copyOf(interfaces);
        Objects.requireNonNull(reason, "reason");
        seen = List.copyOf(seen);
    }

    /** @return whether no interface was chosen */
    public boolean isEmpty() {
        return interfaces.isEmpty();
    }

    /**
     * @return the chosen interfaces as NCCL's INFO line lists them, e.g.
     *     {@code [0]eth0:10.0.0.1<0> [1]eth1:10.0.1.1<0>}
     */
    public String ncclList() {
        StringJoiner sj = new StringJoiner(" ");
        for (int i = 0; i < interfaces.size(); i++) {
            sj.add("[" + i + "]" + interfaces.get(i).name() + ":" + interfaces.get(i).ncclAddress());
        }
        return sj.toString();
    }

    /** @return a multi-line report: the reason, the choice, then every address seen, for a doctor command */
    public String report() {
        StringBuilder sb = new StringBuilder();
        sb.append(reason).append('\n');
        sb.append("chosen: ").append(interfaces.isEmpty() ? "(none)" : ncclList()).append('\n');
        sb.append("seen:");
        if (seen.isEmpty()) {
            sb.append(" (none)");
        }
        for (NetInterface ni : seen) {
            sb.append("\n  ").append(ni.describe());
        }
        return sb.toString();
    }
}
