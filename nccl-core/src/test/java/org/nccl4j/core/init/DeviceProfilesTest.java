package org.nccl4j.core.init;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.device.HostBackend;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.peer.RankLayout;
import org.nccl4j.core.topo.connect.ChannelLimits;
import org.nccl4j.core.topo.tuning.TuningProfile;

/**
 * Which tuning tables and channel bounds init gives a communicator, by its ranks' backends: host
 * ranks get the measured host tables and at most a core per channel; cuda ranks NCCL's GPU
 * tables and NCCL's own channel bounds (only NCCL_MIN/MAX_NCHANNELS); hip ranks RCCL's tables.
 */
class DeviceProfilesTest {
    private static final Config DEFAULTS = Config.of(new Properties(), Map.of(), Path.of("/nonexistent/nccl.conf"));

    private static List<PeerInfo> peers(String... backends) {
        List<PeerInfo> out = new ArrayList<>();
        for (int r = 0; r < backends.length; r++) {
            boolean host = backends[r].equals(HostBackend.NAME);
            out.add(new PeerInfo(r, host ? -1 : r, false, 7, 9, 1, host ? (1L << 62) | r : 0x3000 + (r << 12), 100,
                    backends[r], "v", "h"));
        }
        return out;
    }

    @Test
    void hostRanksGetTheHostTablesAndACoreLimitPerChannel() {
        List<PeerInfo> p = peers("host", "host");
        assertSame(TuningProfile.HOST, DeviceProfiles.of(p));
        int perRank = HostBackend.maxChannels(2);
        ChannelLimits user = ChannelLimits.fromConfig(DEFAULTS);
        assertEquals(new ChannelLimits(Math.min(user.min(), perRank), Math.min(user.max(), perRank)),
                DeviceProfiles.channelLimits(DEFAULTS, p, RankLayout.of(p, 0)));
    }

    @Test
    void hipRanksGetRcclsTables() {
        List<PeerInfo> p = peers("hip", "hip");
        assertSame(TuningProfile.RCCL_GPU, DeviceProfiles.of(p));
        assertEquals("rccl-gpu", DeviceProfiles.of(p).name());
        assertEquals(ChannelLimits.DEFAULT, DeviceProfiles.channelLimits(DEFAULTS, p, RankLayout.of(p, 0)));
    }

    @Test
    void cudaRanksGetNcclsGpuTablesAndNcclsChannelBounds() {
        List<PeerInfo> p = peers("cuda", "cuda", "cuda");
        assertSame(TuningProfile.NCCL_GPU, DeviceProfiles.of(p));
        assertEquals("nccl-gpu", DeviceProfiles.of(p).name());
        assertEquals(ChannelLimits.DEFAULT, DeviceProfiles.channelLimits(DEFAULTS, p, RankLayout.of(p, 0)));
        Config max4 = Config.of(new Properties(), Map.of("NCCL_MAX_NCHANNELS", "4"), Path.of("/nonexistent/nccl.conf"));
        assertEquals(4, DeviceProfiles.channelLimits(max4, p, RankLayout.of(p, 0)).max());
    }
}
