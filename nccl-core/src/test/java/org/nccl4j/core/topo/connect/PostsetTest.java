package org.nccl4j.core.topo.connect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.topo.search.TopoGraph;

class PostsetTest {
    /** Runs the golden dgxa100_n1 job (8 ranks, 12 + 12 channels) with channel bounds. */
    private static ChannelTopology rank0(ChannelLimits limits) {
        GoldenCase g = GoldenCase.load("dgxa100_n1.txt");
        int n = g.nRanks();
        ChannelTopology[] comms = new ChannelTopology[n];
        TopoGraph[][] graphs = new TopoGraph[n][];
        RankConnectInfo[] all = new RankConnectInfo[n];
        for (int r = 0; r < n; r++) {
            graphs[r] = new TopoGraph[] {g.graphOfRank(g.tree(), r), g.graphOfRank(g.ring(), r), g.graphOfRank(g.collNet(), r)};
            comms[r] = new ChannelTopology(r, n, g.gpusPerNode());
            all[r] = TopoConnect.preset(comms[r], graphs[r][0], graphs[r][1], graphs[r][2]);
        }
        TopoConnect.postset(comms[0], all, graphs[0][0], graphs[0][1], graphs[0][2], 2, limits);
        return comms[0];
    }

    @Test
    void maxChannelsTruncatesAndMinChannelsDuplicates() {
        assertEquals(24, rank0(ChannelLimits.DEFAULT).nChannels);
        assertEquals(4, rank0(new ChannelLimits(0, 4)).nChannels);
        ChannelTopology c = rank0(new ChannelLimits(32, 32));
        assertEquals(32, c.nChannels);
        assertEquals(c.channel(0).ring.next, c.channel(24).ring.next);
        // Max first, then min: copies of the first 2 channels.
        ChannelTopology d = rank0(new ChannelLimits(6, 2));
        assertEquals(6, d.nChannels);
        assertEquals(d.channel(1).ring.next, d.channel(5).ring.next);
        assertArrayEquals(d.channel(1).ring.userRanks, d.channel(5).ring.userRanks);
    }

    @Test
    void channelLimitsResolveNcclDefaultsAndClamps() {
        assertEquals(ChannelLimits.DEFAULT, ChannelLimits.of(-2, -2));
        assertEquals(new ChannelLimits(32, 1), ChannelLimits.of(40, 0));
        assertEquals(new ChannelLimits(0, 32), ChannelLimits.of(-7, 99));
        Config config = Config.of(new Properties(), Map.of("NCCL_MIN_NCHANNELS", "4", "NCCL_MAX_NCHANNELS", "-2"),
                Path.of("/nonexistent/nccl.conf"));
        assertEquals(new ChannelLimits(4, 32), ChannelLimits.fromConfig(config));
        // The legacy names count only where the new ones are unset.
        Config legacy = Config.of(new Properties(), Map.of("NCCL_MIN_NRINGS", "3", "NCCL_MAX_NRINGS", "6",
                "NCCL_MAX_NCHANNELS", "5"), Path.of("/nonexistent/nccl.conf"));
        assertEquals(new ChannelLimits(3, 5), ChannelLimits.fromConfig(legacy));
    }

    @Test
    void userRanksStartAtThisRank() {
        Ring ring = new Ring();
        ring.setUserRanks(2, new int[] {3, 0, 2, 1});
        assertArrayEquals(new int[] {2, 1, 3, 0}, ring.userRanks);
        assertEquals(1, ring.index); // (position of rank 2 - position of rank 0 + 4) % 4
    }

    @Test
    void brokenRingsAreInternalErrors() {
        // 0 -> 1 -> 0 never reaches 2.
        NcclException open = assertThrows(NcclException.class,
                () -> RingBuilder.build(1, 0, 3, new int[3], new int[] {1, 0, 0}));
        assertEquals(Result.INTERNAL_ERROR, open.result());
        // 1 -> 2 -> 2: does not come back to 1.
        assertThrows(NcclException.class, () -> RingBuilder.build(1, 1, 3, new int[3], new int[] {1, 2, 2}));
        assertArrayEquals(new int[] {1, 2, 0}, RingBuilder.build(1, 1, 3, new int[3], new int[] {1, 2, 0}));
    }
}
