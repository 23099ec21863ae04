package org.nccl4j.core.init;

import java.util.List;
import org.nccl4j.core.kernel.AlgoChooser;
import org.nccl4j.core.kernel.RecursiveDoubling;
import org.nccl4j.core.op.CollOp;
import org.nccl4j.core.topo.tuning.AlgoInfo;
import org.nccl4j.core.topo.tuning.AlgoSelector;
import org.nccl4j.core.topo.tuning.Algorithm;
import org.nccl4j.core.topo.tuning.CollFunc;
import org.nccl4j.core.topo.tuning.HostAlgoEnable;
import org.nccl4j.core.topo.tuning.TuningModel;
import org.nccl4j.core.proto.Protocol;

/**
 * NCCL's per-call choice ({@code getAlgoInfo}): the tuning model's fastest algorithm and
 * protocol for the call's size ({@code NCCL_ALGO}/{@code NCCL_PROTO} already disabled the rest
 * in the model), and fewer channels for small calls. The host engine's calls ({@link
 * #choose(CollOp, int)}) may also get one of the engine's own ({@link Algorithm#HOST}) for an
 * AllReduce, where the model's own figures rate it faster than the model's choice.
 */
final class ModelAlgoChooser implements AlgoChooser {
    private static final Protocol[] PROTOCOLS = Protocol.values();
    /**
     * Up to this size two ranks that reach each other through the net take the host algorithms'
     * one exchange whatever the model rates the ring: the model's ring figures are a node's (its
     * hops ~1 µs), where each of the ring's two dependent hops pays a network step. Measured (2
     * rank JVMs, Socket net, 2-core VM, alternated runs): 16 KiB 25-31 µs against the ring's
     * 40-42, 64 KiB 35-38 against 51-54, 128 KiB 70-80 against 61-63 (above, the ring's pipelined
     * halves win, as the model rates them).
     */
    static final long PAIR_OVER_NET_EXCHANGE_BYTES = 64 << 10;
    private static final int MEMO_SLOTS = 64;

    private record Memo(CollOp.Func func, long bytes, int nranks, Choice choice) {
    }

    private final Memo[] memo = new Memo[MEMO_SLOTS];
    private final TuningModel model;
    /** Which of {@link Algorithm#HOST} {@code NCCL_ALGO} allows. */
    private final List<Algorithm> hostAllowed;
    private final boolean hostForced;
    /** Two ranks whose one link is a network connection, as across nodes, though they share a node. */
    private final boolean pairOverNet;

    /**
     * @param model       the communicator's tuning model
     * @param algo        {@code NCCL_ALGO}, or {@code null}
     * @param pairOverNet whether the communicator is two ranks that reach each other through the
     *                    net (e.g. {@code NCCL_SHM_DISABLE=1} on one node)
     */
    ModelAlgoChooser(TuningModel model, String algo, boolean pairOverNet) {
        this.model = model;
        this.hostAllowed = Algorithm.HOST.stream().filter(a -> HostAlgoEnable.allowed(algo, a)).toList();
        this.hostForced = HostAlgoEnable.forced(algo);
        this.pairOverNet = pairOverNet;
    }

    /**
     * The host engine's choice, remembered by call kind and size: a training loop repeats a few
     * sizes, and rating every algorithm and protocol took ~5% of an 8-byte AllReduce's time.
     */
    @Override
    public Choice choose(CollOp op, int nranks) {
        long bytes = op.count() * op.type().size();
        int slot = (Long.hashCode(bytes * 0x9E3779B97F4A7C15L) ^ op.func().ordinal()) & (MEMO_SLOTS - 1);
        Memo m = memo[slot];
        if (m != null && m.bytes() == bytes && m.func() == op.func() && m.nranks() == nranks) {
            return m.choice();
        }
        Choice c = rate(op.func(), bytes, nranks);
        // Racing threads may each fill the slot: the record is immutable, any of them will do.
        memo[slot] = new Memo(op.func(), bytes, nranks, c);
        return c;
    }

    private Choice rate(CollOp.Func func, long bytes, int nranks) {
        if (nranks == 1) {
            return new Choice(Algorithm.RING, Protocol.SIMPLE, 1);
        }
        Choice c = choose(func, bytes, nranks);
        if (func != CollOp.Func.ALL_REDUCE || !mayChooseRecursiveDoubling(nranks)) {
            return c;
        }
        boolean exchange = hostForced || pairOverNet && nranks == 2 && bytes <= PAIR_OVER_NET_EXCHANGE_BYTES;
        float best = exchange ? AlgoSelector.NO_TIME
                : model.algoTime(CollFunc.ALL_REDUCE, bytes, c.algorithm(), c.protocol(), 1, 0);
        Choice fastest = c;
        // A pair over the net pays a network step per hop wherever it runs: not held to LL below.
        boolean twoOnANode = nranks == 2 && !hostForced && model.context().nNodes() == 1 && !pairOverNet;
        for (Algorithm a : hostAllowed) {
            for (Protocol p : PROTOCOLS) {
                if (twoOnANode && p != Protocol.LL) {
                    // Two ranks on a node: the one exchange beats the ring's two dependent steps
                    // with LL only (8 B, 2 rank JVMs, 16 cores: 0.63-0.65 µs against the ring's
                    // 0.79-0.80); with Simple it measured slower (2 cores, 512 B-4 KiB: 1.2-1.7 µs
                    // against 0.9-1.3).
                    continue;
                }
                float t = hostTime(a, p, bytes, nranks);
                if (t >= 0 && t < best) {
                    best = t;
                    fastest = new Choice(a, p, 1);
                }
            }
        }
        return fastest;
    }

    @Override
    public boolean mayChooseRecursiveDoubling(int nranks) {
        // Across nodes a hop is a network step (measured over the Socket net at 64 KiB on 2 ranks:
        // 1.48 GB/s against the ring's 0.87-0.95); NCCL_ALGO naming it alone asks for it from two.
        return !hostAllowed.isEmpty() && nranks <= MAX_RECDBL_RANKS
                && (AlgoChooser.recursiveDoublingOnANode(nranks) || hostForced || model.context().nNodes() > 1);
    }

    /**
     * A host algorithm's time by the model's ring figures: the ring's base latency, its mean
     * latency per step for each dependent hop, and the bytes a rank sends at half the ring's bus
     * bandwidth: one thread copies data out, then reduces what came in, where a ring's channels
     * overlap both (measured on 16 cores: 2.5-2.9 GB/s a hop against rings' 4-7 GB/s).
     * Recursive doubling: log2(m) hops of the whole buffer; halving and doubling: twice as many
     * hops, carrying 2(m-1)/m of it in all. With n not a power of two, two more whole-buffer hops
     * (the fold and the result's way back).
     *
     * @return µs, or -1 where the protocol is disabled
     */
    private float hostTime(Algorithm a, Protocol p, long bytes, int nranks) {
        float algBw = model.bandwidth(CollFunc.ALL_REDUCE, Algorithm.RING, p);
        if (algBw == 0) {
            return -1;
        }
        int steps = 2 * (nranks - 1);
        float base = model.profile().baseLat(Algorithm.RING, p);
        float stepLat = (model.latency(CollFunc.ALL_REDUCE, Algorithm.RING, p) - base) / steps;
        float busBw = algBw * steps / nranks / 2;
        int m = Integer.highestOneBit(nranks);
        int rounds = Integer.numberOfTrailingZeros(m);
        int fold = m == nranks ? 0 : 2;
        float hops = a == Algorithm.HALVING_DOUBLING ? 2 * rounds + fold : RecursiveDoubling.hops(nranks);
        float buffers = a == Algorithm.HALVING_DOUBLING ? 2f * (m - 1) / m + fold : hops;
        return base + hops * stepLat + buffers * (float) bytes / (1000 * busBw);
    }

    /**
     * @param func   the collective
     * @param bytes  count x type size (per rank for AllGather and ReduceScatter)
     * @param nranks ranks of the communicator, at least 2
     * @return the model's choice for a call of that size
     */
    Choice choose(CollOp.Func func, long bytes, int nranks) {
        long nBytes = func == CollOp.Func.ALL_GATHER || func == CollOp.Func.REDUCE_SCATTER ? bytes * nranks : bytes;
        AlgoInfo info = AlgoSelector.select(model, collFunc(func), nBytes, 0, 1, 0);
        return new Choice(info.algorithm(), info.protocol(), Math.max(1, info.nChannels()));
    }

    static CollFunc collFunc(CollOp.Func f) {
        return switch (f) {
            case BROADCAST -> CollFunc.BROADCAST;
            case REDUCE -> CollFunc.REDUCE;
            case ALL_GATHER -> CollFunc.ALL_GATHER;
            case REDUCE_SCATTER -> CollFunc.REDUCE_SCATTER;
            case ALL_REDUCE -> CollFunc.ALL_REDUCE;
        };
    }
}
