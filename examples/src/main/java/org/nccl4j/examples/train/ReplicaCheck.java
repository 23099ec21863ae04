package org.nccl4j.examples.train;

import org.nccl4j.Communicator;
import org.nccl4j.RedOp;

/**
 * Whether every rank holds bit-identical parameters: the raw bits of every parameter are reduced
 * with MAX and with MIN over the ranks; where the two differ, some replica differs. Comparing bits
 * (not values) catches a -0.0 against a 0.0 and a NaN against anything.
 */
final class ReplicaCheck {
    private ReplicaCheck() {
    }

    /**
     * Collective: every rank must call it.
     *
     * @param comm   the communicator
     * @param params this rank's parameters
     * @return how many parameters differ between some two ranks (the same on every rank)
     */
    static long differing(Communicator comm, float[] params) {
        int[] max = new int[params.length];
        for (int i = 0; i < params.length; i++) {
            max[i] = Float.floatToRawIntBits(params[i]);
        }
        int[] min = max.clone();
        comm.allReduce(max, RedOp.MAX);
        comm.allReduce(min, RedOp.MIN);
        long differ = 0;
        for (int i = 0; i < params.length; i++) {
            if (max[i] != min[i]) {
                differ++;
            }
        }
        return differ;
    }

    /**
     * @param params parameters
     * @return a 64-bit FNV-1a digest of their bits, printed so runs can be compared by eye
     */
    static long digest(float[] params) {
        long h = 0xcbf29ce484222325L;
        for (float p : params) {
            int bits = Float.floatToRawIntBits(p);
            for (int b = 0; b < 4; b++) {
                h ^= (bits >>> (8 * b)) & 0xff;
                h *= 0x100000001b3L;
            }
        }
        return h;
    }
}
