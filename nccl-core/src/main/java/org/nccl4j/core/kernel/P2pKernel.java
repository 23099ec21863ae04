package org.nccl4j.core.kernel;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.nccl4j.core.transport.Conn;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.proto.Protocol;

/**
 * Runs a group's sends and receives together: every transfer advances whenever its connection
 * allows (credit for sends, data for receives), so no ordering of peers can deadlock however
 * large the messages (NCCL runs them in separate warps; here one thread polls them all).
 * Transfers to or from one peer run in the order they were called.
 */
public final class P2pKernel {
    private P2pKernel() {
    }

    /**
     * One send or receive.
     *
     * @param send  whether it sends
     * @param buf   the user's buffer
     * @param bytes its size
     * @param conn  the connection to or from the peer
     */
    public record Transfer(boolean send, MemorySegment buf, long bytes, Conn conn) {
    }

    private static final class Active {
        final Transfer t;
        /** The connection's step when the transfer began. */
        final long base;
        long done;
        boolean started;

        Active(Transfer t) {
            this.t = t;
            this.base = t.conn().step();
        }

        boolean finished() {
            return started && done >= t.bytes();
        }
    }

    /**
     * Moves every transfer to completion.
     *
     * @param queues transfers per connection, in call order
     * @param waiter how to wait and when to give up
     */
    public static void run(Map<Conn, ArrayDeque<Transfer>> queues, Waiter waiter) {
        List<ArrayDeque<Transfer>> lanes = new ArrayList<>(queues.values());
        Active[] current = new Active[lanes.size()];
        long start = 0;
        for (int round = 1; ; round++) {
            boolean moved = false;
            boolean pending = false;
            for (int i = 0; i < lanes.size(); i++) {
                if (current[i] == null || current[i].finished()) {
                    Transfer next = lanes.get(i).poll();
                    current[i] = next == null ? null : new Active(next);
                }
                Active a = current[i];
                if (a == null) {
                    continue;
                }
                pending = true;
                moved |= step(a);
                if (a.finished()) {
                    Transfer next = lanes.get(i).poll();
                    current[i] = next == null ? null : new Active(next);
                    pending |= current[i] != null;
                }
            }
            if (!pending) {
                return;
            }
            if (moved) {
                round = 0;
                start = 0;
                continue;
            }
            if (start == 0) {
                start = System.nanoTime();
            }
            waiter.pause(round, start);
            if ((round & 1023) == 0) {
                for (Active a : current) {
                    if (a != null) {
                        waiter.check(a.t.conn(), a.t.send() ? "credit" : "data", start);
                    }
                }
            }
        }
    }

    /** Moves one step of a transfer if its connection allows; a zero-byte transfer is one empty step. */
    private static boolean step(Active a) {
        Conn c = a.t.conn();
        long s = c.step();
        long counter = ConnMem.counter(c.waitHeader());
        long n = Math.min(c.stepSize(), a.t.bytes() - a.done);
        MemorySegment slot = c.buff().asSlice((s % ConnMem.STEPS) * c.stepSize(), n);
        if (a.t.send()) {
            if (counter < s + 1 - ConnMem.STEPS) {
                return false;
            }
            MemorySegment.copy(a.t.buf(), a.done, slot, 0, n);
            ConnMem.setSize(c.publishHeader(), (int) (s % ConnMem.STEPS), (int) n);
        } else {
            long steps = Math.max(1, (a.t.bytes() + c.stepSize() - 1) / c.stepSize());
            c.announce(Math.min(s + ConnMem.STEPS, a.base + steps), Protocol.SIMPLE);
            if (counter < s + 1) {
                return false;
            }
            MemorySegment.copy(slot, 0, a.t.buf(), a.done, n);
        }
        c.step(s + 1);
        c.publish(s + 1);
        a.done += n;
        a.started = true;
        return true;
    }
}
