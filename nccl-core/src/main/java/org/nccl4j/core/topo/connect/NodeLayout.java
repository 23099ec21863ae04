package org.nccl4j.core.topo.connect;

/**
 * Nodes as init.cc discovers them: ranks sharing the first rank of channel 0's ring segment
 * ({@code ringRecv[0]}) share a node, and nodes are numbered in order of their first rank.
 *
 * @param nNodes       number of nodes
 * @param firstRanks   each node's key rank ({@code ringRecv[0]})
 * @param treePatterns each node's tree pattern, from its first rank
 * @param nodeOfRank   each rank's node
 */
public record NodeLayout(int nNodes, int[] firstRanks, int[] treePatterns, int[] nodeOfRank) {
    /**
     * @param all every rank's all-gather entry, by rank
     * @return the layout
     */
    public static NodeLayout detect(RankConnectInfo[] all) {
        int nRanks = all.length;
        int[] firstRanks = new int[nRanks];
        int[] treePatterns = new int[nRanks];
        int[] nodeOfRank = new int[nRanks];
        int nNodes = 0;
        for (int i = 0; i < nRanks; i++) {
            int firstRank = all[i].topoRanks().ringRecv[0];
            int node = -1;
            for (int n = 0; n < nNodes; n++) {
                if (firstRanks[n] == firstRank) {
                    node = n;
                }
            }
            if (node == -1) {
                node = nNodes++;
                firstRanks[node] = firstRank;
                // Patterns may differ between nodes (they depend on the GPU generation).
                treePatterns[node] = all[i].tree().pattern();
            }
            nodeOfRank[i] = node;
        }
        return new NodeLayout(nNodes, firstRanks, treePatterns, nodeOfRank);
    }
}
