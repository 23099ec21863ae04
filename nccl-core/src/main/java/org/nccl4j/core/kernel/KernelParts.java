package org.nccl4j.core.kernel;

import java.util.List;
import java.util.Map;
import org.nccl4j.DataType;
import org.nccl4j.RedOp;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.reduce.Reducer;
import org.nccl4j.core.transport.Conn;

/**
 * A communicator's reducers and primitives, made on a call's first use and reused by every later
 * call of the same element type, operation and protocol: they depend on nothing else, and a
 * training loop repeats a few kinds of call, so a small call allocates none of them. Both are
 * immutable; threads racing to fill a slot may each make one, and any of them will do.
 */
final class KernelParts {
    private static final int OPS = RedOp.values().length;
    private static final int TYPES = DataType.values().length;
    private static final int PROTOS = Protocol.values().length;
    /** Slot 0: byte moves without a reduction (Broadcast, AllGather); then one per type and op. */
    private static final int KINDS = 1 + TYPES * OPS;

    private final int nranks;
    private final Reducer[] reducers = new Reducer[TYPES * OPS];
    /** Per channel, its ring's primitives by kind and protocol. */
    private final Prims[][] ring;
    /** The recursive-doubling exchanges' primitives (one per exchange), by kind and protocol. */
    private final Prims[][] recursive = new Prims[KINDS * PROTOS][];

    /**
     * @param nranks   ranks of the communicator (AVG divides by it)
     * @param channels channels of the engine
     */
    KernelParts(int nranks, int channels) {
        this.nranks = nranks;
        this.ring = new Prims[channels][KINDS * PROTOS];
    }

    /**
     * @return the reducer of {@code type} and {@code op}; a missing one fails as {@link Reducer#of} says
     */
    Reducer reducer(DataType type, RedOp op) {
        if (type == null || op == null) {
            return Reducer.of(type, op, nranks);
        }
        int i = type.ordinal() * OPS + op.ordinal();
        Reducer r = reducers[i];
        if (r == null) {
            r = Reducer.of(type, op, nranks);
            reducers[i] = r;
        }
        return r;
    }

    /**
     * A channel's ring primitives.
     *
     * @param bid    the channel's index in the engine
     * @param ch     the channel
     * @param type   element type
     * @param op     reduction, or {@code null} for byte moves (then the unit is one byte)
     * @param proto  protocol
     * @param waiter how its waits wait
     * @return the primitives
     */
    Prims ring(int bid, Channel ch, DataType type, RedOp op, Protocol proto, Waiter waiter) {
        Prims[] bySlot = ring[bid];
        int slot = slot(type, op, proto);
        Prims p = bySlot[slot];
        if (p == null) {
            Reducer r = op == null ? null : reducer(type, op);
            p = new Prims(new Conn[] {ch.ringRecv}, new Conn[] {ch.ringSend}, r, op == null ? 1 : type.size(), waiter,
                    proto, ch.staging);
            bySlot[slot] = p;
        }
        return p;
    }

    /**
     * The primitives of each recursive-doubling exchange, in the plan's order.
     *
     * @param plan    this rank's exchanges
     * @param recvs   connections received from, by peer
     * @param sends   connections sent to, by peer
     * @param type    element type
     * @param op      reduction
     * @param proto   protocol
     * @param waiter  how their waits wait
     * @param staging the scratch memory (LL, LL128)
     * @return one primitives per exchange; callers only read it
     */
    Prims[] recursive(List<RecursiveDoubling.Exchange> plan, Map<Integer, Conn> recvs, Map<Integer, Conn> sends,
                      DataType type, RedOp op, Protocol proto, Waiter waiter, Staging staging) {
        int slot = slot(type, op, proto);
        Prims[] prims = recursive[slot];
        if (prims == null) {
            Reducer r = reducer(type, op);
            prims = new Prims[plan.size()];
            for (int e = 0; e < prims.length; e++) {
                int peer = plan.get(e).peer();
                prims[e] = new Prims(new Conn[] {recvs.get(peer)}, new Conn[] {sends.get(peer)}, r, type.size(), waiter,
                        proto, staging);
            }
            recursive[slot] = prims;
        }
        return prims;
    }

    private static int slot(DataType type, RedOp op, Protocol proto) {
        int kind = op == null ? 0 : 1 + type.ordinal() * OPS + op.ordinal();
        return kind * PROTOS + proto.ordinal();
    }
}
