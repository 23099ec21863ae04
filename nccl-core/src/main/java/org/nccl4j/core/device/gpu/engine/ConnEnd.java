package org.nccl4j.core.device.gpu.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.core.proto.Protocol;

/**
 * The device addresses of one end of a connection, as {@code struct n4j_conn} holds them
 * ({@code common.h}; {@link ChannelConns#CONN_BYTES} bytes).
 *
 * @param buffs each protocol's FIFO, by protocol code (0 where the connection has none)
 * @param tail  the tail word
 * @param head  the head word
 * @param step  this end's step count
 * @param sizes NET send ends: the step sizes for the proxy; else 0
 * @param tags  NET ends: the step tags for the proxy; else 0
 */
record ConnEnd(long[] buffs, long tail, long head, long step, long sizes, long tags) {
    /** An end the kernels reach directly (P2P or SHM): no proxy words. */
    static ConnEnd direct(long[] buffs, long tail, long head, long step) {
        return new ConnEnd(buffs, tail, head, step, 0, 0);
    }

    /** Writes this end as the {@code n4j_conn} at {@code at} of {@code host}. */
    void write(MemorySegment host, long at) {
        for (Protocol p : Protocol.values()) {
            host.set(ValueLayout.JAVA_LONG, at + 8L * p.code(), buffs[p.code()]);
        }
        host.set(ValueLayout.JAVA_LONG, at + 24, tail);
        host.set(ValueLayout.JAVA_LONG, at + 32, head);
        host.set(ValueLayout.JAVA_LONG, at + 40, step);
        host.set(ValueLayout.JAVA_LONG, at + 48, sizes);
        host.set(ValueLayout.JAVA_LONG, at + 56, tags);
    }
}
