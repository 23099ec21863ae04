package org.nccl4j.core.topo.connect;

import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;

/** {@code ncclBuildRings}: every channel's ring order starting at this rank, validated. */
public final class RingBuilder {
    /** Ranks shown per ring in the INFO line. */
    private static final int MAX_LOGGED = 20;

    private RingBuilder() {
    }

    /**
     * Follows {@code next} from {@code rank} around every ring; rank 0 logs each ring
     * ({@code Channel cc/nn :} and up to 20 ranks).
     *
     * @param nRings number of channels
     * @param rank   this rank
     * @param nRanks ranks in the communicator
     * @param prev   {@code prev[c * nRanks + r]}: r's predecessor in channel c (kept for the
     *               signature's symmetry with NCCL; only {@code next} is followed)
     * @param next   {@code next[c * nRanks + r]}: r's successor in channel c
     * @return {@code rings[c * nRanks + i]}: the i-th rank of channel c's ring from {@code rank}
     * @throws NcclException with {@link Result#INTERNAL_ERROR} if a ring does not close at
     *                       {@code rank} or misses a rank
     */
    public static int[] build(int nRings, int rank, int nRanks, int[] prev, int[] next) {
        int[] rings = new int[nRings * nRanks];
        for (int r = 0; r < nRings; r++) {
            int base = r * nRanks;
            int current = rank;
            for (int i = 0; i < nRanks; i++) {
                rings[base + i] = current;
                current = next[base + current];
            }
            if (rank == 0) {
                Log.info(Subsys.INIT, "%s", dumpLine(rings, base, nRanks, String.format("Channel %02d/%02d : ", r, nRings)));
            }
            if (current != rank) {
                throw NcclException.of(Result.INTERNAL_ERROR,
                        String.format("Error : ring %d does not loop back to start (%d != %d)", r, current, rank), null);
            }
            for (int i = 0; i < nRanks; i++) {
                if (!contains(rings, base, nRanks, i)) {
                    throw NcclException.of(Result.INTERNAL_ERROR,
                            String.format("Error : ring %d does not contain rank %d", r, i), null);
                }
            }
        }
        return rings;
    }

    private static boolean contains(int[] rings, int base, int nRanks, int rank) {
        for (int j = 0; j < nRanks; j++) {
            if (rings[base + j] == rank) {
                return true;
            }
        }
        return false;
    }

    private static String dumpLine(int[] values, int base, int nRanks, String prefix) {
        StringBuilder line = new StringBuilder(prefix);
        for (int i = 0; i < nRanks && i < MAX_LOGGED; i++) {
            line.append(String.format(" %3d", values[base + i]));
        }
        return line.toString();
    }
}
