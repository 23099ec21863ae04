package org.nccl4j.examples.train;

import org.nccl4j.Communicator;
import org.nccl4j.RedOp;

/**
 * The collectives training runs on Java arrays, in place and blocking: on host memory (the
 * communicator's array conveniences), or staged through device memory ({@link DeviceArrays}).
 */
interface ArrayCollectives extends AutoCloseable {
    /**
     * @param data replaced by {@code root}'s
     * @param root the rank whose values everyone gets
     */
    void broadcast(float[] data, int root);

    /**
     * @param data this rank's values, replaced by the reduction over every rank
     * @param op   reduction
     */
    void allReduce(float[] data, RedOp op);

    /**
     * @param data this rank's values, replaced by the reduction over every rank
     * @param op   reduction
     */
    void allReduce(double[] data, RedOp op);

    /** Frees what the collectives hold. */
    @Override
    void close();

    /**
     * @param comm the communicator
     * @return collectives on host arrays, the communicator's own conveniences
     */
    static ArrayCollectives host(Communicator comm) {
        return new ArrayCollectives() {
            @Override
            public void broadcast(float[] data, int root) {
                comm.broadcast(data, root);
            }

            @Override
            public void allReduce(float[] data, RedOp op) {
                comm.allReduce(data, op);
            }

            @Override
            public void allReduce(double[] data, RedOp op) {
                comm.allReduce(data, op);
            }

            @Override
            public void close() {
            }
        };
    }
}
