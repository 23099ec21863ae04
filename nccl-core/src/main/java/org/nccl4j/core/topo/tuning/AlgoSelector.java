package org.nccl4j.core.topo.tuning;

import org.nccl4j.core.proto.Protocol;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;

/** {@code getAlgoInfo} of enqueue.cc: the fastest algorithm and protocol for a call, then its channels and threads. */
public final class AlgoSelector {
    /** {@code getAlgoInfo}'s starting "best" time: one hour, in µs. */
    public static final float NO_TIME = 3600000000.0f;

    private AlgoSelector() {
    }

    /**
     * Picks the (algorithm, protocol) with the strictly smallest predicted time (earlier pairs win
     * ties), then lowers channels and threads while each thread would get less than its threshold
     * of work, and adds the Simple protocol's synchronisation warps.
     *
     * @param model              the communicator's tuning model
     * @param coll               the collective
     * @param nBytes             bytes of the call (see {@link TuningModel#algoTime})
     * @param collNetTypeSupport 1 if CollNet supports the call's datatype and operation
     * @param numPipeOps         operations launched together (1 for a single call)
     * @param nChannels          channels requested by the caller, 0 for the communicator's count
     * @return the choice; for a single rank no algorithm ({@code null}) and {@code nChannels} unchanged
     * @throws NcclException with {@link Result#INTERNAL_ERROR} if every combination is disabled
     */
    public static AlgoInfo select(TuningModel model, CollFunc coll, long nBytes, int collNetTypeSupport,
                                  int numPipeOps, int nChannels) {
        TuningContext ctx = model.context();
        if (ctx.nRanks() == 1) {
            return new AlgoInfo(null, null, nChannels, 0);
        }
        float minTime = NO_TIME;
        Algorithm algorithm = null;
        Protocol protocol = null;
        for (Algorithm a : Algorithm.NCCL) {
            if (a == Algorithm.COLLNET && collNetTypeSupport != 1) {
                continue;
            }
            for (Protocol p : Protocol.values()) {
                float time = model.algoTime(coll, nBytes, a, p, numPipeOps, nChannels);
                if (time >= 0 && time < minTime) {
                    algorithm = a;
                    protocol = p;
                    minTime = time;
                }
            }
        }
        if (algorithm == null) {
            throw NcclException.of(Result.INTERNAL_ERROR, "Error : no algorithm/protocol available", null);
        }
        Log.trace(Subsys.COLL, "%d Bytes -> Algo %d proto %d time %f", nBytes, algorithm.code(), protocol.code(), minTime);

        return fit(model, algorithm, protocol, nBytes, nChannels);
    }

    /**
     * The second half of {@code getAlgoInfo} for a given algorithm and protocol: lowers channels,
     * then threads, while each thread would get less than its threshold of work, and adds the
     * Simple protocol's synchronisation warps.
     *
     * @param model     the communicator's tuning model
     * @param algorithm the algorithm
     * @param protocol  the protocol
     * @param nBytes    bytes of the call
     * @param nChannels channels requested by the caller, 0 for the communicator's count
     * @return the algorithm and protocol with their channels and threads
     */
    public static AlgoInfo fit(TuningModel model, Algorithm algorithm, Protocol protocol, long nBytes, int nChannels) {
        TuningContext ctx = model.context();
        int nc = nChannels > 0 ? nChannels : ctx.nChannels();
        int nt = model.maxThreads(algorithm, protocol);
        int threadThreshold = (int) model.threadThreshold(algorithm, protocol);
        if (algorithm == Algorithm.COLLNET) {
            int ncSwitch = 16;
            boolean flag = true;
            while (ncSwitch >= 1 && flag) {
                while ((flag = below(nBytes, nc * nt * ctx.collNetHeads() * threadThreshold)) && nc > ncSwitch) {
                    if (nc == ncSwitch + ncSwitch / 2) {
                        threadThreshold /= 2;
                    }
                    nc--;
                }
                ncSwitch /= 2;
            }
        } else {
            while (below(nBytes, nc * nt * threadThreshold)) {
                if (nc >= 2) {
                    nc--;
                } else if (nt % 128 == 0) {
                    nt /= 2;
                } else {
                    break;
                }
            }
        }
        if (protocol == Protocol.SIMPLE) {
            nt += ThreadCounts.WARP_SIZE; // a warp for synchronisation
            if (algorithm == Algorithm.TREE || algorithm == Algorithm.COLLNET) {
                nt += 3 * ThreadCounts.WARP_SIZE;
            }
        }
        return new AlgoInfo(algorithm, protocol, nc, nt);
    }

    /** C's {@code size_t < int}: the int product (which may have wrapped) is converted to unsigned. */
    private static boolean below(long nBytes, int work) {
        return Long.compareUnsigned(nBytes, work) < 0;
    }
}
