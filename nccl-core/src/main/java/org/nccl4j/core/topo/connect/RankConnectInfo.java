package org.nccl4j.core.topo.connect;

/**
 * One rank's entry of init's third all-gather: its CollNet support, its graphs' summaries and
 * its {@link TopoRanks}.
 *
 * @param collNetSupport 1 if this rank can use CollNet
 * @param tree           tree graph summary
 * @param ring           ring graph summary
 * @param collNet        CollNet graph summary
 * @param topoRanks      this rank's ring ends and tree attachments
 */
public record RankConnectInfo(int collNetSupport, GraphInfo tree, GraphInfo ring, GraphInfo collNet,
                              TopoRanks topoRanks) {
}
