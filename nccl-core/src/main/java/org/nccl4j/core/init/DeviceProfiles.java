package org.nccl4j.core.init;

import java.util.List;
import org.nccl4j.core.device.HostBackend;
import org.nccl4j.core.topo.tuning.TuningProfile;

/** Which tuning tables a communicator uses: measured host figures for host ranks, NCCL's for GPUs. */
final class DeviceProfiles {
    private DeviceProfiles() {
    }

    static TuningProfile of(List<PeerInfo> peers) {
        for (PeerInfo p : peers) {
            if (!HostBackend.NAME.equals(p.backend())) {
                return TuningProfile.NCCL_GPU;
            }
        }
        return TuningProfile.NCCL_GPU;
    }
}
