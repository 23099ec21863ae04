package org.nccl4j.core.kernel;

import java.lang.foreign.Arena;
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

    /** Looks up the connection of a (channel, peer) pair. */
    interface Conns {
        Conn send(int channel, int peer);

        Conn recv(int channel, int peer);
    }
}
