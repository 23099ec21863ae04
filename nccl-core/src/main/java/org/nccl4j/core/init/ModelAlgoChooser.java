package org.nccl4j.core.init;

import org.nccl4j.core.op.CollOp;
import org.nccl4j.core.kernel.AlgoChooser;
import org.nccl4j.core.topo.tuning.AlgoInfo;
import org.nccl4j.core.topo.tuning.AlgoSelector;
import org.nccl4j.core.topo.tuning.Algorithm;
import org.nccl4j.core.topo.tuning.CollFunc;
import org.nccl4j.core.topo.tuning.TuningModel;
import org.nccl4j.core.proto.Protocol;

/**
 * NCCL's per-call choice ({@code getAlgoInfo}): the tuning model's fastest algorithm and
 * protocol for the call's size ({@code NCCL_ALGO}/{@code NCCL_PROTO} already disabled the rest
 * in the model), and fewer channels for small calls.
 */
final class ModelAlgoChooser implements AlgoChooser {
    private final TuningModel model;

    ModelAlgoChooser(TuningModel model) {
        this.model = model;
    }

    @Override
    public Choice choose(CollOp op, int nranks) {
        if (nranks == 1) {
            return new Choice(Algorithm.RING, Protocol.SIMPLE, 1);
        }
        return choose(op.func(), op.count() * op.type().size(), nranks);
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
