package org.nccl4j.core.init;

import java.nio.ByteBuffer;
import org.nccl4j.core.topo.connect.ChannelLimits;
import org.nccl4j.core.topo.connect.GraphInfo;
import org.nccl4j.core.topo.connect.RankConnectInfo;
import org.nccl4j.core.topo.connect.TopoRanks;
import org.nccl4j.core.topo.search.TopoGraph;

/**
 * Fixed-size encoding of a rank's {@link RankConnectInfo} for init's third all-gather
 * (NCCL's {@code allGather3Data}: CollNet support, tree/ring/CollNet graph info, topoRanks), and
 * the rank's {@link ChannelLimits}, which every rank lowers to the least of all.
 */
final class ConnectInfoCodec {
    private static final int GRAPH_INFO = 5 * 4 + 2 * 4;
    /** Bytes per rank. */
    private static final int LIMITS_AT = 4 + 3 * GRAPH_INFO + 7 * TopoGraph.MAXCHANNELS * 4;
    static final int BYTES = LIMITS_AT + 2 * 4;

    private ConnectInfoCodec() {
    }

    static byte[] encode(RankConnectInfo info, ChannelLimits limits) {
        ByteBuffer b = ByteBuffer.allocate(BYTES);
        b.putInt(info.collNetSupport());
        for (GraphInfo g : new GraphInfo[] {info.tree(), info.ring(), info.collNet()}) {
            b.putInt(g.pattern()).putInt(g.nChannels()).putInt(g.sameChannels())
                    .putFloat(g.speedIntra()).putFloat(g.speedInter()).putInt(g.typeIntra()).putInt(g.typeInter());
        }
        TopoRanks t = info.topoRanks();
        for (int[] a : arrays(t)) {
            for (int v : a) {
                b.putInt(v);
            }
        }
        b.putInt(limits.min()).putInt(limits.max());
        return b.array();
    }

    /** @return the channel bounds of the rank whose entry starts at {@code offset} */
    static ChannelLimits limits(byte[] bytes, int offset) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        return new ChannelLimits(b.getInt(offset + LIMITS_AT), b.getInt(offset + LIMITS_AT + 4));
    }

    static RankConnectInfo decode(byte[] bytes, int offset) {
        ByteBuffer b = ByteBuffer.wrap(bytes, offset, BYTES);
        int collNet = b.getInt();
        GraphInfo[] g = new GraphInfo[3];
        for (int i = 0; i < 3; i++) {
            g[i] = new GraphInfo(b.getInt(), b.getInt(), b.getInt(), b.getFloat(), b.getFloat(), b.getInt(), b.getInt());
        }
        TopoRanks t = new TopoRanks();
        for (int[] a : arrays(t)) {
            for (int i = 0; i < a.length; i++) {
                a[i] = b.getInt();
            }
        }
        return new RankConnectInfo(collNet, g[0], g[1], g[2], t);
    }

    private static int[][] arrays(TopoRanks t) {
        return new int[][] {t.ringRecv, t.ringSend, t.ringPrev, t.ringNext, t.treeToParent, t.treeToChild0, t.treeToChild1};
    }
}
