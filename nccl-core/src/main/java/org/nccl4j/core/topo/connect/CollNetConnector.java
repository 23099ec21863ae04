package org.nccl4j.core.topo.connect;

import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.topo.search.TopoGraph;

/** {@code connectCollNet}: heads (first GPU of each CollNet channel) and their local peers. */
final class CollNetConnector {
    private CollNetConnector() {
    }

    static void connect(ChannelTopology comm, TopoGraph collNetGraph) {
        int rank = comm.rank;
        int localRanks = comm.localRanks;
        int nHeads = collNetGraph.nChannels;
        int[] heads = new int[nHeads];
        for (int c = 0; c < nHeads; c++) {
            heads[c] = collNetGraph.intra[c * localRanks];
        }
        for (int c = 0; c < comm.nChannels; c++) {
            CollTree tree = comm.channel(c).collTree;
            StringBuilder line = new StringBuilder(String.format("CollNet channel %d rank %d ", c, rank));
            int nDown = 0;
            for (int i = 0; i < nHeads; i++) {
                if (rank == heads[i]) {
                    tree.headRank = i;
                    tree.out = comm.nRanks; // the network root's id
                    line.append("down ");
                    for (int r = 0; r < localRanks; r++) {
                        int peer = collNetGraph.intra[i * localRanks + r];
                        if (peer == rank) {
                            continue;
                        }
                        tree.down[nDown++] = peer;
                        line.append(' ').append(peer).append(' ');
                    }
                    line.append("nDown ").append(nDown).append(' ');
                    break;
                }
            }
            int nUp = 0;
            line.append("up ");
            for (int h = 0; h < nHeads; h++) {
                if (rank == heads[h]) {
                    continue;
                }
                tree.up[nUp++] = heads[h];
                line.append(' ').append(heads[h]).append(' ');
            }
            tree.nHeads = nHeads;
            // Leaves start at different heads so they do not all send to one at once.
            tree.shift = (rank % localRanks) % nHeads;
            tree.depth = nUp == 0 && nDown == 0 ? 1 : 2;
            line.append(String.format("nUp %d nHeads %d ", nUp, nHeads));
            line.append(String.format("headRank %d out %d shift %d", tree.headRank, tree.out, tree.shift));
            Log.info(Subsys.GRAPH, "%s", line);
        }
    }
}
