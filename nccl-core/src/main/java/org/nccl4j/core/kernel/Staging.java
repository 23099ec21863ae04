package org.nccl4j.core.kernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A channel's scratch memory for the LL and LL128 protocols: the data of a received step is
 * decoded from its lines into a receive buffer (one per peer received from), and reduced or
 * copied from there with the Simple protocol's code. Allocated on first use, grown if a larger
 * step comes; only the channel's thread uses it.
 */
final class Staging {
    private final Arena arena;
    private final MemorySegment[] recv = new MemorySegment[ChannelPlan.MAX_TREE_ARITY];
    private MemorySegment send;

    Staging(Arena arena) {
        this.arena = arena;
    }

    /**
     * @param i     which peer, below {@link ChannelPlan#MAX_TREE_ARITY}
     * @param bytes bytes needed (a multiple of 8)
     * @return a receive buffer of at least that many bytes
     */
    MemorySegment recv(int i, long bytes) {
        if (recv[i] == null || recv[i].byteSize() < bytes) {
            recv[i] = arena.allocate(bytes, 64);
        }
        return recv[i];
    }

    /**
     * @param bytes bytes needed
     * @return a buffer for the data of a step to send
     */
    MemorySegment send(long bytes) {
        if (send == null || send.byteSize() < bytes) {
            send = arena.allocate(bytes, 64);
        }
        return send;
    }
}
