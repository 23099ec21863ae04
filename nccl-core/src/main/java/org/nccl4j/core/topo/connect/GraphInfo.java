package org.nccl4j.core.topo.connect;

import org.nccl4j.core.topo.search.TopoGraph;

/**
 * The summary of a graph that every rank shares ({@code struct ncclGraphInfo} in init.cc).
 *
 * @param pattern      the graph's pattern
 * @param nChannels    channels found
 * @param sameChannels 1 if all channels use the same GPU order
 * @param speedIntra   per-channel bandwidth inside a node (GB/s)
 * @param speedInter   per-channel bandwidth between nodes (GB/s)
 * @param typeIntra    worst intra-node path type
 * @param typeInter    worst path type to the network
 */
public record GraphInfo(int pattern, int nChannels, int sameChannels, float speedIntra, float speedInter,
                        int typeIntra, int typeInter) {
    /**
     * @param graph a searched graph
     * @return its summary
     */
    public static GraphInfo of(TopoGraph graph) {
        return new GraphInfo(graph.pattern, graph.nChannels, graph.sameChannels, graph.speedIntra, graph.speedInter,
                graph.typeIntra, graph.typeInter);
    }
}
