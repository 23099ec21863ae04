package org.nccl4j.core.kernel;

import org.nccl4j.core.enqueue.CollOp;
import org.nccl4j.core.transport.Protocol;

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

    /**
     * An algorithm and a protocol.
     *
     * @param algorithm the algorithm
     * @param protocol  the protocol
     */
    record Choice(Algorithm algorithm, Protocol protocol) {
        /** Both are required. */
        public Choice {
            if (algorithm == null || protocol == null) {
                throw new IllegalArgumentException("algorithm and protocol are required: " + algorithm + "/" + protocol);
            }
        }
    }
}
