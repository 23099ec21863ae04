package org.nccl4j.core.init;

import java.util.List;
import org.nccl4j.NcclException;
import org.nccl4j.core.bootstrap.Bootstrap;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.topo.tuning.AlgoSelector;
import org.nccl4j.core.topo.tuning.Algorithm;
import org.nccl4j.core.topo.tuning.TuningModel;
import org.nccl4j.core.device.LocalDevice;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.CommFailure;
import org.nccl4j.core.wait.Deadline;

/** What init gives a device backend's {@code connect}: this rank, its rings, the bootstrap and the abort hooks. */
record InitDeviceContext(int rank, LocalDevice device, Config config, List<int[]> rings, int simpleStepBytes,
                         List<PeerInfo> peers, Bootstrap bootstrap, Deadline deadline, AbortFlag abort,
                         CommFailure failure, TuningModel model) implements DeviceCommContext {
    @Override
    public int ringChannels(long nBytes) {
        if (peers.size() == 1) {
            return 1;
        }
        int nc = AlgoSelector.fit(model, Algorithm.RING, Protocol.SIMPLE, nBytes, 0).nChannels();
        return Math.max(1, Math.min(nc, rings.size()));
    }

    @Override
    public int nranks() {
        return peers.size();
    }

    @Override
    public boolean inThisProcess(int peer) {
        return peers.get(peer).pidHash() == peers.get(rank).pidHash();
    }

    @Override
    public byte[] allGather(byte[] mine) {
        return bootstrap.allGather(mine, deadline);
    }

    @Override
    public long opTimeoutNanos() {
        return config.integer(Params.OP_TIMEOUT_MS) * 1_000_000L;
    }

    @Override
    public void onAbort(Runnable action) {
        abort.onAbort(action);
    }

    @Override
    public String abortReason() {
        return abort.reason();
    }

    @Override
    public void fail(String where, NcclException e) {
        failure.fail(where, e);
    }
}
