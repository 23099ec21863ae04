package org.nccl4j.core.topo.connect;

import org.nccl4j.core.topo.search.TopoGraph;

/**
 * Makes every rank tune with the same figures: each graph's nChannels, sameChannels, speeds and
 * path types, and CollNet support, become their minimum over all ranks.
 */
public final class GraphAlignment {
    private GraphAlignment() {
    }

    /**
     * @param all     every rank's all-gather entry
     * @param tree    this rank's tree graph, updated
     * @param ring    this rank's ring graph, updated
     * @param collNet this rank's CollNet graph, updated
     * @param comm    this rank's channels; {@code collNetSupport} updated
     */
    public static void align(RankConnectInfo[] all, TopoGraph tree, TopoGraph ring, TopoGraph collNet,
                             ChannelTopology comm) {
        for (RankConnectInfo info : all) {
            lower(tree, info.tree());
            lower(ring, info.ring());
            lower(collNet, info.collNet());
            comm.collNetSupport = Math.min(info.collNetSupport(), comm.collNetSupport);
        }
    }

    private static void lower(TopoGraph graph, GraphInfo info) {
        graph.nChannels = Math.min(info.nChannels(), graph.nChannels);
        graph.sameChannels = Math.min(info.sameChannels(), graph.sameChannels);
        graph.speedIntra = min(info.speedIntra(), graph.speedIntra);
        graph.speedInter = min(info.speedInter(), graph.speedInter);
        graph.typeIntra = Math.min(info.typeIntra(), graph.typeIntra);
        graph.typeInter = Math.min(info.typeInter(), graph.typeInter);
    }

    /** {@code std::min}: the first argument unless the second is smaller. */
    private static float min(float a, float b) {
        return b < a ? b : a;
    }
}
