package org.nccl4j.core.device.gpu.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nccl4j.Completion;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.Stream;
import org.nccl4j.core.device.DeviceCollOp;
import org.nccl4j.core.device.DeviceP2pOp;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.core.device.gpu.GpuRuntime;

/**
 * A group's launch on one rank's stream ({@code ncclGroupEnd}): the collectives one kernel each,
 * in call order (their rings' step counts advance in the same order on every rank), then every
 * send and receive in one {@code nccl4j_SendRecv_Simple} launch, one block per lane (the
 * transfers to, or from, one peer in call order), so that all lanes move at once. A send to self
 * is a device copy into the matching receive from self.
 */
final class GroupLaunch {
    private final GpuCollectives owner;
    private final GpuRuntime ctx;
    private final DeviceCommContext comm;
    private final PeerChannels peers;
    private final long function;
    private final long abortDevice;
    private final int stepBytes;
    private final MemorySegment args;

    GroupLaunch(GpuCollectives owner, GpuRuntime ctx, DeviceCommContext comm, PeerChannels peers, long function,
                long abortDevice, int stepBytes, Arena arena) {
        this.owner = owner;
        this.ctx = ctx;
        this.comm = comm;
        this.peers = peers;
        this.function = function;
        this.abortDevice = abortDevice;
        this.stepBytes = stepBytes;
        this.args = arena.allocate(P2pArgs.BYTES, 8);
    }

    /** Transfers to or from one peer in one direction, in call order. */
    private record Lane(boolean send, int peer, List<DeviceP2pOp> ops) {
        int channel() {
            return 2 * peer + (send ? 0 : 1);
        }
    }

    private Map<Long, Lane> lanes(List<DeviceP2pOp> p2ps) {
        Map<Long, Lane> lanes = new LinkedHashMap<>();
        for (DeviceP2pOp op : p2ps) {
            if (op.peer() != comm.rank()) {
                lanes.computeIfAbsent(2L * op.peer() + (op.send() ? 0 : 1),
                        k -> new Lane(op.send(), op.peer(), new ArrayList<>())).ops().add(op);
            }
        }
        return lanes;
    }

    /** Refuses what this launch cannot run, before any rank of the group launches. */
    void check(List<DeviceP2pOp> p2ps, Stream stream) {
        owner.own(stream);
        Map<Long, Lane> lanes = lanes(p2ps);
        int ops = 0;
        for (Lane l : lanes.values()) {
            peers.check(comm.rank(), l.peer());
            ops += l.ops().size();
        }
        if (lanes.size() > P2pArgs.MAX_LANES || ops > P2pArgs.MAX_OPS) {
            throw NcclException.of(Result.INVALID_USAGE, "rank " + comm.rank() + ": a group of " + ops
                    + " sends/receives with " + lanes.size() + " peers and directions; the cuda backend launches at most "
                    + P2pArgs.MAX_OPS + " with " + P2pArgs.MAX_LANES + " in one group",
                    "split the exchange into several groups");
        }
    }

    /** Launches a checked group; returns the completion of its last launch. */
    Completion launch(List<DeviceCollOp> colls, List<DeviceP2pOp> p2ps, Stream stream) {
        GpuStream s = owner.own(stream);
        synchronized (owner) {
            Completion last = null;
            for (DeviceCollOp op : colls) {
                last = owner.launch(op, s);
            }
            if (p2ps.isEmpty()) {
                return last;
            }
            copySelf(p2ps, s);
            Map<Long, Lane> lanes = lanes(p2ps);
            if (!lanes.isEmpty()) {
                int lane = 0;
                int op = 0;
                for (Lane l : lanes.values()) {
                    P2pArgs.lane(args, lane++, l.channel(), op, l.ops().size(), l.send());
                    for (DeviceP2pOp t : l.ops()) {
                        P2pArgs.op(args, op++, t.buf().address(), t.bytes());
                    }
                }
                P2pArgs.header(args, peers.address(), abortDevice, comm.nranks(), stepBytes, lane, op);
                ctx.launch(function, lane, GpuCollectives.THREADS, 0, s.handle(), args.address(), P2pArgs.BYTES);
                peers.wake();
            }
            return owner.recordCompletion(s, "SendRecv of rank " + comm.rank());
        }
    }

    /** The k-th send to self goes into the k-th receive from self (sizes checked by the engine). */
    private void copySelf(List<DeviceP2pOp> p2ps, GpuStream s) {
        ArrayDeque<DeviceP2pOp> sends = new ArrayDeque<>();
        ArrayDeque<DeviceP2pOp> recvs = new ArrayDeque<>();
        for (DeviceP2pOp op : p2ps) {
            if (op.peer() == comm.rank()) {
                (op.send() ? sends : recvs).add(op);
            }
        }
        while (!sends.isEmpty() && !recvs.isEmpty()) {
            DeviceP2pOp from = sends.poll();
            DeviceP2pOp to = recvs.poll();
            if (from.bytes() > 0 && from.buf().address() != to.buf().address()) {
                ctx.copyDtoD(to.buf().address(), from.buf().address(), from.bytes(), s.handle());
            }
        }
    }
}
