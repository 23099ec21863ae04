package org.nccl4j.core.init;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.nccl4j.NcclException;
import org.nccl4j.core.bootstrap.Bootstrap;
import org.nccl4j.core.conn.BuffSizes;
import org.nccl4j.core.conn.ConnAllocator;
import org.nccl4j.core.device.DeviceChannel;
import org.nccl4j.core.device.DeviceCollOp;
import org.nccl4j.core.device.DeviceCollPlan;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.core.device.DeviceNetConn;
import org.nccl4j.core.device.DeviceNetLink;
import org.nccl4j.core.device.DeviceTransport;
import org.nccl4j.core.device.LocalDevice;
import org.nccl4j.core.kernel.AlgoChooser;
import org.nccl4j.core.kernel.Chunks;
import org.nccl4j.core.kernel.RingKernels;
import org.nccl4j.core.op.CollOp;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.topo.tuning.Algorithm;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.CommFailure;
import org.nccl4j.core.wait.Deadline;

/** What init gives a device backend's {@code connect}: this rank, its channels, the bootstrap and the abort hooks. */
record InitDeviceContext(int rank, LocalDevice device, Config config, List<DeviceChannel> channels, int treeDepth,
                         BuffSizes buffs, List<PeerInfo> peers, Bootstrap bootstrap, Deadline deadline,
                         AbortFlag abort, CommFailure failure, ModelAlgoChooser chooser, DeviceTransport[] transports,
                         boolean[] p2pRead, DeviceNetSetup net)
        implements DeviceCommContext {
    @Override
    public DeviceCollPlan plan(DeviceCollOp op) {
        CollOp.Func func = CollOp.Func.of(op.kind());
        boolean bytes = func == CollOp.Func.BROADCAST || func == CollOp.Func.ALL_GATHER;
        int unit = bytes ? 1 : op.type().size();
        int n = peers.size();
        AlgoChooser.Choice c = n == 1 ? new AlgoChooser.Choice(Algorithm.RING, Protocol.SIMPLE, 1)
                : chooser.choose(func, op.count() * op.type().size(), n);
        // As the host engine: Tree runs AllReduce only (the model never rates it for the others).
        boolean tree = c.algorithm() == Algorithm.TREE && func == CollOp.Func.ALL_REDUCE;
        Protocol p = c.protocol();
        int nc = Math.max(1, Math.min(c.nChannels(), channels.size()));
        int step = buffs.stepSize(p);
        if (tree) {
            long chunk = Chunks.tree(p, unit, op.count(), step, treeDepth, nc);
            return new DeviceCollPlan(true, p, nc, step, chunk, 1, false, unit);
        }
        RingKernels.Split s = Chunks.ring(func, p, unit, p.dataBytesPerStep(step), nc, 0);
        return new DeviceCollPlan(false, p, nc, step, s.chunk(), s.align(), s.interleaved(), unit);
    }

    @Override
    public int stepBytes(Protocol protocol) {
        return buffs.stepSize(protocol);
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
    public DeviceTransport transport(int peer) {
        return transports[peer];
    }

    @Override
    public boolean p2pRead(int peer) {
        return p2pRead[peer];
    }

    @Override
    public Map<DeviceNetLink, DeviceNetConn> connectNet(List<DeviceNetLink> links, int tag, ConnAllocator memory) {
        return net.connect(links, tag, memory);
    }

    @Override
    public void awaitNetDrained(Collection<DeviceNetConn> conns) {
        net.awaitDrained(conns);
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
