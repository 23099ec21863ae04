package org.nccl4j.core.topo.system;

import org.nccl4j.core.debug.Level;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;

/** {@code ncclTopoPrint}: the system tree and the paths as INFO/GRAPH log lines. */
public final class TopoPrinter {
    private TopoPrinter() {
    }

    /**
     * Logs the system (nothing is formatted unless INFO/GRAPH is enabled).
     *
     * @param s the system
     */
    public static void print(TopoSystem s) {
        if (!Log.get().enabled(Level.INFO, Subsys.GRAPH)) {
            return;
        }
        Log.info(Subsys.GRAPH, "%s", String.format("=== System : maxWidth %2.1f totalWidth %2.1f ===", s.maxWidth, s.totalWidth));
        for (TopoNode cpu : s.nodes(NodeType.CPU)) {
            printRec(cpu, null, "");
        }
        Log.info(Subsys.GRAPH, "%s", "==========================================");
        printPaths(s);
    }

    private static String describe(TopoNode n) {
        String base = NodeType.str(n.type) + "/" + Long.toHexString(n.id).toUpperCase(java.util.Locale.ROOT);
        return switch (n.type) {
            case NodeType.GPU -> base + " (" + n.rank + ")";
            case NodeType.CPU -> base + " (" + n.arch + "/" + n.vendor + "/" + n.model + ")";
            case NodeType.PCI -> base + " (" + Long.toHexString(n.device) + ")";
            case NodeType.NET -> base + String.format(" (%x/%d/%f)", n.asic, n.port, n.netWidth);
            default -> base;
        };
    }

    private static void printRec(TopoNode node, TopoNode prev, String indent) {
        String head = node.type == NodeType.NET ? NodeType.str(node.type) + "/" + Long.toHexString(node.id).toUpperCase(java.util.Locale.ROOT)
                : describe(node);
        Log.info(Subsys.GRAPH, "%s", indent + head);
        String pad = " ".repeat(indent.length());
        for (TopoLink link : node.links) {
            if (link.type == LinkType.LOC) {
                continue;
            }
            if (link.type != LinkType.PCI || link.remNode != prev) {
                String line = pad + String.format("+ %s[%2.1f] - ", LinkType.str(link.type), link.width);
                if (link.type == LinkType.PCI) {
                    printRec(link.remNode, node, line);
                } else {
                    Log.info(Subsys.GRAPH, "%s", line + describeLeaf(link.remNode));
                }
            }
        }
    }

    private static String describeLeaf(TopoNode n) {
        return n.type == NodeType.NET ? describe(n)
                : NodeType.str(n.type) + "/" + Long.toHexString(n.id).toUpperCase(java.util.Locale.ROOT);
    }

    /**
     * {@code ncclTopoPrintPaths}: one line per GPU and NET with every computed path.
     *
     * @param s the system
     */
    public static void printPaths(TopoSystem s) {
        for (int type : new int[] {NodeType.GPU, NodeType.NET}) {
            for (TopoNode node : s.nodes(type)) {
                StringBuilder line = new StringBuilder(NodeType.str(node.type) + "/"
                        + Long.toHexString(node.id).toUpperCase(java.util.Locale.ROOT) + " :");
                for (int t = 0; t < NodeType.COUNT; t++) {
                    if (node.paths[t] == null) {
                        continue;
                    }
                    for (int n = 0; n < s.count(t); n++) {
                        TopoPath p = node.paths[t][n];
                        line.append(String.format("%s/%X (%d/%f/%s) ", NodeType.str(t), s.node(t, n).id, p.count, p.width,
                                PathType.str(p.type)));
                    }
                }
                Log.info(Subsys.GRAPH, "%s", line);
            }
        }
    }
}
