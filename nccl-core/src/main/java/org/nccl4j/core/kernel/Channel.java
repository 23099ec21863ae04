package org.nccl4j.core.kernel;

import java.lang.foreign.Arena;
import org.nccl4j.core.op.CollOp;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.transport.Conn;

/**
 * One channel ({@code ncclChannel}): its ring, its tree, and the connections they use. Ring and
 * tree share the connection to a peer, as NCCL keys connections by (channel, peer).
 */
final class Channel {
    final int id;
    /** {@code ring[k]} = the rank at distance k after this one ({@code ring[0]} = this rank). */
    final int[] ring;
    /** Connection to {@code ring[1]}, or {@code null} with one rank. */
    final Conn ringSend;
    /** Connection from {@code ring[n-1]}, or {@code null} with one rank. */
    final Conn ringRecv;
    final int treeUp;
    final int[] treeDown;
    final int treeDepth;
    /** To and from the parent, {@code null} at the root. */
    final Conn upSend;
    final Conn upRecv;
    /** To and from each child. */
    final Conn[] downSend;
    final Conn[] downRecv;
    /** LL and LL128 lines are decoded into and encoded from here. */
    final Staging staging;
    /**
     * The ring split of this channel's last call, with what it was made for: a call like the one
     * before (a training loop's) reuses it, so that path allocates nothing without relying on
     * the JIT's escape analysis. Only the thread running this channel's part of a launch uses it.
     */
    private RingSplit lastSplit;

    private record RingSplit(CollOp.Func func, Protocol proto, int unit, int nChannels, RingKernels.Split split) {
    }

    Channel(ChannelPlan plan, Conns conns, Arena arena) {
        this.id = plan.id();
        this.ring = plan.ringUserRanks();
        int n = ring.length;
        this.ringSend = n > 1 ? conns.send(id, ring[1]) : null;
        this.ringRecv = n > 1 ? conns.recv(id, ring[n - 1]) : null;
        this.treeUp = plan.treeUp();
        this.treeDown = plan.treeDown();
        this.treeDepth = plan.treeDepth();
        this.upSend = treeUp >= 0 ? conns.send(id, treeUp) : null;
        this.upRecv = treeUp >= 0 ? conns.recv(id, treeUp) : null;
        this.downSend = new Conn[treeDown.length];
        this.downRecv = new Conn[treeDown.length];
        for (int i = 0; i < treeDown.length; i++) {
            downSend[i] = conns.send(id, treeDown[i]);
            downRecv[i] = conns.recv(id, treeDown[i]);
        }
        this.staging = new Staging(arena);
    }

    /**
     * This channel's ring split for a call ({@link Chunks#ring}), the last one's when it is the same.
     *
     * @param func      the collective
     * @param proto     protocol
     * @param unit      bytes per element (1 for the collectives that move bytes)
     * @param stepData  data bytes per step of the protocol (fixed per protocol for a communicator)
     * @param nChannels channels of the call
     * @return the split
     */
    RingKernels.Split ringSplit(CollOp.Func func, Protocol proto, int unit, long stepData, int nChannels) {
        RingSplit last = lastSplit;
        if (last == null || last.func() != func || last.proto() != proto || last.unit() != unit
                || last.nChannels() != nChannels) {
            last = new RingSplit(func, proto, unit, nChannels, Chunks.ring(func, proto, unit, stepData, nChannels, id));
            lastSplit = last;
        }
        return last.split();
    }

    /** Looks up the connection of a (channel, peer) pair. */
    interface Conns {
        Conn send(int channel, int peer);

        Conn recv(int channel, int peer);
    }
}
