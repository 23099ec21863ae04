package org.nccl4j.core.topo.paths;

import org.nccl4j.core.topo.system.NodeType;
import org.nccl4j.core.topo.system.PathType;
import org.nccl4j.core.topo.system.TopoNode;
import org.nccl4j.core.topo.system.TopoPath;
import org.nccl4j.core.topo.system.TopoSystem;
import org.nccl4j.core.topo.system.Widths;

/**
 * {@code ncclTopoComputeP2pChannels}: how many channels send/recv uses, how many per peer, and
 * which ones (bit-mirrored so few channels spread over the whole range).
 *
 * @param p2pnChannels        channels used for send/recv (power of two)
 * @param p2pnChannelsPerPeer channels per peer (power of two)
 * @param p2pChannels         the channel of each per-peer slot
 */
public record P2pChannels(int p2pnChannels, int p2pnChannelsPerPeer, int[] p2pChannels) {

    /**
     * Computes the p2p channel layout.
     *
     * @param system      the rank's system (paths computed)
     * @param nChannels   the communicator's collective channels (after Postset)
     * @param nRanks      ranks in the communicator
     * @param minP2p      {@code NCCL_MIN_P2P_NCHANNELS}
     * @param maxP2p      {@code NCCL_MAX_P2P_NCHANNELS}
     * @return the layout
     */
    public static P2pChannels compute(TopoSystem system, int nChannels, int nRanks, int minP2p, int maxP2p) {
        int p2pn = Math.max(Math.min(nChannels, maxP2p), minP2p);
        int minChannels = p2pn;
        for (int g = 0; g < system.count(NodeType.GPU); g++) {
            for (int r = 0; r < nRanks; r++) {
                int n = channelsTo(system, g, r);
                if (n >= 0) {
                    minChannels = Math.min(minChannels, n);
                }
            }
        }
        int perPeer = nextPow2(minChannels);
        p2pn = nextPow2(p2pn);
        int[] channels = new int[perPeer];
        for (int c = 0; c < perPeer; c++) {
            int mirror = 0;
            for (int b = 1, mb = p2pn >> 1; b < p2pn; b <<= 1, mb >>= 1) {
                if ((c & b) != 0) {
                    mirror |= mb;
                }
            }
            channels[c] = mirror;
        }
        return new P2pChannels(p2pn, perPeer, channels);
    }

    /** {@code ncclTopoGetNchannels}: -1 for itself, 2 per NVLink (at least 2) locally, 1 over the network. */
    private static int channelsTo(TopoSystem system, int g, int peerRank) {
        int peer = system.rankToIndex(peerRank);
        if (peer < 0) {
            return 1;
        }
        if (g == peer) {
            return -1;
        }
        TopoPath path = system.node(NodeType.GPU, peer).paths[NodeType.GPU][g];
        if (path.type == PathType.NVL) {
            TopoNode gpu = system.node(NodeType.GPU, g);
            float nvlWidth = Widths.nvLink(gpu.cudaCompCap);
            return 2 * Math.max(1, (int) (path.width / nvlWidth));
        }
        return 2;
    }

    private static int nextPow2(int v) {
        int p = 1;
        while (p < v) {
            p <<= 1;
        }
        return p;
    }
}
