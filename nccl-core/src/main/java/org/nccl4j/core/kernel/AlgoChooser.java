package org.nccl4j.core.kernel;

import org.nccl4j.core.topo.tuning.Algorithm;
import org.nccl4j.core.op.CollOp;
import org.nccl4j.core.proto.Protocol;

/**
 * Picks the algorithm and protocol of one collective ({@code getAlgoInfo}). The engine runs
 * whatever it returns; {@link Algorithm#TREE} is valid for AllReduce only.
 */
@FunctionalInterface
public interface AlgoChooser {
    /**
     * @param op       the collective, arguments checked
     * @param nranks   ranks of the communicator
     * @return how to run it
     */
    Choice choose(CollOp op, int nranks);

    /** Most ranks recursive doubling runs on: each rank connects to log2(ranks) partners at init. */
    int MAX_RECDBL_RANKS = 16;
    /**
     * Whether the model may choose it on one node for this many ranks: two (one exchange against
     * the ring's two dependent hand-offs; 8 B on 2 rank JVMs, 2 cores: 0.37-0.61 µs against the
     * ring's 0.38-0.82, and 5-15% ahead on 16 cores) and four or more; not three, where it saves
     * one hop of four (measured: no gain). Across nodes, where a hop is a network step, and where
     * {@code NCCL_ALGO} names it alone, from two.
     *
     * @param nranks ranks of the communicator, at most {@link #MAX_RECDBL_RANKS}
     * @return whether a node of that many ranks may run it when the model prefers it
     */
    static boolean recursiveDoublingOnANode(int nranks) {
        return nranks == 2 || nranks >= 4;
    }

    /**
     * @param nranks ranks of the communicator
     * @return whether {@link #choose} may return one of {@link Algorithm#HOST} (the engine then
     *     connects each rank to its recursive-doubling partners at init, which both use)
     */
    default boolean mayChooseRecursiveDoubling(int nranks) {
        return false;
    }

    /**
     * An algorithm, a protocol and how many of the communicator's channels run the call.
     *
     * @param algorithm the algorithm
     * @param protocol  the protocol
     * @param nChannels channels for this call (NCCL lowers it for small calls), at least 1
     */
    record Choice(Algorithm algorithm, Protocol protocol, int nChannels) {
        /** All are required. */
        public Choice {
            if (algorithm == null || protocol == null || nChannels < 1) {
                throw new IllegalArgumentException("algorithm, protocol and channels are required: " + algorithm + "/"
                        + protocol + "/" + nChannels);
            }
        }
    }
}
