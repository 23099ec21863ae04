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
     * Fewest on one node when the model chooses: with two ranks it saves no hop that costs
     * (measured), with three one hop of four; across nodes, where a hop is a network step, and
     * where {@code NCCL_ALGO} names it alone, from two.
     */
    int MIN_RECDBL_RANKS = 4;

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
