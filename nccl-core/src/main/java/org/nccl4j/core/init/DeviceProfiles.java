package org.nccl4j.core.init;

import java.util.List;
import org.nccl4j.core.device.HostBackend;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.param.Source;
import org.nccl4j.core.topo.connect.ChannelLimits;
import org.nccl4j.core.topo.tuning.TuningProfile;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.peer.RankLayout;

/**
 * Which tuning tables a communicator uses: measured host figures for host ranks, RCCL's for AMD
 * GPUs (the hip backend's ranks), NCCL's for other GPUs.
 */
final class DeviceProfiles {
    /** nccl-gpu-hip's backend: its ranks are AMD GPUs, which RCCL tunes with its own tables. */
    static final String AMD_BACKEND = "hip";

    private DeviceProfiles() {
    }

    static TuningProfile of(List<PeerInfo> peers) {
        if (allHost(peers)) {
            return TuningProfile.HOST;
        }
        return peers.stream().anyMatch(p -> AMD_BACKEND.equals(p.backend())) ? TuningProfile.RCCL_GPU
                : TuningProfile.NCCL_GPU;
    }

    /**
     * The channel bounds Postset applies: the user's, and for host ranks, unless
     * {@code NCCL_MAX_NCHANNELS} (or its legacy {@code NCCL_MAX_NRINGS}) is set, {@link HostBackend#maxChannels}.
     */
    static ChannelLimits channelLimits(Config config, List<PeerInfo> peers, RankLayout layout) {
        ChannelLimits user = ChannelLimits.fromConfig(config);
        if (!allHost(peers) || config.setting(Params.MAX_NCHANNELS).source() != Source.DEFAULT
                || config.setting(Params.MAX_NRINGS).source() != Source.DEFAULT) {
            return user;
        }
        int perRank = HostBackend.maxChannels(layout.localRanks().length);
        return new ChannelLimits(Math.min(user.min(), perRank), Math.min(user.max(), perRank));
    }

    private static boolean allHost(List<PeerInfo> peers) {
        for (PeerInfo p : peers) {
            if (!HostBackend.NAME.equals(p.backend())) {
                return false;
            }
        }
        return true;
    }
}
