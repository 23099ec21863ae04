package org.nccl4j.core.topo.search;

import org.nccl4j.core.debug.Level;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.topo.system.NodeType;
import org.nccl4j.core.topo.system.PathType;
import org.nccl4j.core.topo.system.TopoSystem;

/** {@code ncclTopoPrintGraph}: a graph and its channels as INFO/GRAPH log lines. */
public final class GraphPrinter {
    private GraphPrinter() {
    }

    /**
     * Logs a graph.
     *
     * @param system the system it was searched on
     * @param graph  the graph
     */
    public static void print(TopoSystem system, TopoGraph graph) {
        if (!Log.get().enabled(Level.INFO, Subsys.GRAPH)) {
            return;
        }
        Log.info(Subsys.GRAPH, "Pattern %d, crossNic %d, nChannels %d, speed %f/%f, type %s/%s, sameChannels %d", graph.pattern,
                graph.crossNic, graph.nChannels, graph.speedIntra, graph.speedInter, PathType.str(graph.typeIntra),
                PathType.str(graph.typeInter), graph.sameChannels);
        for (int c = 0; c < graph.nChannels; c++) {
            Log.info(Subsys.GRAPH, "%s", channelLine(system, graph, c));
        }
    }

    /**
     * One channel as NCCL prints it: {@code "%2d : [NET/n] GPU/r ... [NET/m]"}.
     *
     * @param system the system
     * @param graph  the graph
     * @param c      the channel
     * @return the line
     */
    public static String channelLine(TopoSystem system, TopoGraph graph, int c) {
        int ngpus = system.count(NodeType.GPU);
        boolean net = system.count(NodeType.NET) > 0;
        StringBuilder sb = new StringBuilder(String.format("%2d :", c));
        if (net) {
            sb.append(" NET/").append(graph.inter[2 * c]);
        }
        for (int i = 0; i < ngpus; i++) {
            sb.append(" GPU/").append(graph.intra[ngpus * c + i]);
        }
        if (net) {
            sb.append(" NET/").append(graph.inter[2 * c + 1]);
        }
        return sb.toString();
    }
}
