package org.nccl4j.core.topo.connect;

import java.util.ArrayList;
import java.util.List;

/**
 * The simulator's {@code RANK}, {@code RCH} and {@code RING} lines (formats of the golden
 * reference outputs) for one rank after {@link Postset}.
 */
public final class ConnectPrinter {
    private ConnectPrinter() {
    }

    /**
     * @param comm      a rank's channels after Postset
     * @param rings     Postset's rings ({@code rings[c * nRanks + i]})
     * @param withRings whether to add a {@code RING} line after each channel (rank 0 in the goldens)
     * @return the {@code RANK} line, then per channel its {@code RCH} line (and {@code RING} line)
     */
    public static List<String> lines(ChannelTopology comm, int[] rings, boolean withRings) {
        List<String> out = new ArrayList<>();
        out.add(rankLine(comm));
        for (int c = 0; c < comm.nChannels; c++) {
            out.add(channelLine(comm, c));
            if (withRings) {
                out.add(ringLine(c, rings, comm.nRanks));
            }
        }
        return out;
    }

    /**
     * @param comm a rank's channels
     * @return {@code RANK r nNodes=.. node=.. localRanks=.. nChannels=..}
     */
    public static String rankLine(ChannelTopology comm) {
        return "RANK " + comm.rank + " nNodes=" + comm.nNodes + " node=" + comm.node + " localRanks="
                + comm.localRanks + " nChannels=" + comm.nChannels;
    }

    /**
     * @param comm a rank's channels
     * @param c    a channel
     * @return {@code   RCH rank=r ch=c ring=prev->r->next tree=up:u,down:d0/d1/d2,depth:k}
     */
    public static String channelLine(ChannelTopology comm, int c) {
        Channel ch = comm.channel(c);
        return "  RCH rank=" + comm.rank + " ch=" + c + " ring=" + ch.ring.prev + "->" + comm.rank + "->"
                + ch.ring.next + " tree=up:" + ch.tree.up + ",down:" + ch.tree.down[0] + "/" + ch.tree.down[1] + "/"
                + ch.tree.down[2] + ",depth:" + ch.tree.depth;
    }

    /**
     * @param c      a channel
     * @param rings  Postset's rings
     * @param nRanks ranks in the communicator
     * @return {@code   RING ch=c : r0 r1 ...}
     */
    public static String ringLine(int c, int[] rings, int nRanks) {
        StringBuilder sb = new StringBuilder("  RING ch=").append(c).append(" :");
        for (int i = 0; i < nRanks; i++) {
            sb.append(' ').append(rings[c * nRanks + i]);
        }
        return sb.toString();
    }
}
