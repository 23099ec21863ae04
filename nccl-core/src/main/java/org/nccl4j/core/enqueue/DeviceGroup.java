package org.nccl4j.core.enqueue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nccl4j.Completion;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.Stream;
import org.nccl4j.core.device.DeviceCollOp;
import org.nccl4j.core.device.DeviceP2pOp;

/**
 * groupEnd for device operations: per communicator, one launch of the group's collectives and
 * sends/receives on its one stream ({@code ncclGroupEnd}'s one kernel per communicator). Every
 * communicator's batch is checked before any is launched, so a refused group launches nothing.
 */
final class DeviceGroup {
    private DeviceGroup() {
    }

    private record Batch(EnqueueTarget comm, Stream stream, List<DeviceCollOp> colls, List<DeviceP2pOp> p2ps,
                         List<GroupCompletion> completions) {
    }

    static void launch(List<DevicePending> ops) {
        List<Batch> batches = checkedOrFail(ops);
        for (int i = 0; i < batches.size(); i++) {
            Batch b = batches.get(i);
            Completion c;
            try {
                c = b.comm().onDevice().launchGroup(b.colls(), b.p2ps(), b.stream());
            } catch (NcclException e) {
                // Peers of the batches launched so far may wait for this one: their waits end on
                // the operation deadline or an abort.
                for (Batch rest : batches.subList(i, batches.size())) {
                    rest.completions().forEach(x -> x.fail(e));
                }
                throw e;
            }
            b.completions().forEach(x -> x.bind(c));
        }
    }

    /** {@link #checked}, failing every operation's completion with a refusal. */
    private static List<Batch> checkedOrFail(List<DevicePending> ops) {
        try {
            return checked(ops);
        } catch (NcclException e) {
            ops.forEach(p -> p.completion().fail(e));
            throw e;
        }
    }

    private static List<Batch> checked(List<DevicePending> ops) {
        Map<EnqueueTarget, Batch> byComm = new LinkedHashMap<>();
        for (DevicePending p : ops) {
            Batch b = byComm.computeIfAbsent(p.comm(), c -> new Batch(c, p.stream(), new ArrayList<>(),
                    new ArrayList<>(), new ArrayList<>()));
            if (p.stream() != b.stream()) {
                throw NcclException.of(Result.INVALID_USAGE, "mixing different streams within a group call is not"
                        + " supported (communicator of rank " + p.comm().userRank() + ": " + b.stream() + " and "
                        + p.stream() + ")", "use one stream per communicator inside a group");
            }
            if (p.coll() != null) {
                b.colls().add(p.coll());
            } else {
                b.p2ps().add(p.p2p());
            }
            b.completions().add(p.completion());
        }
        for (Batch b : byComm.values()) {
            selfPairs(b.comm().userRank(), b.p2ps());
            b.comm().onDevice().checkGroup(b.colls(), b.p2ps(), b.stream());
        }
        return new ArrayList<>(byComm.values());
    }

    /** A send to self needs a receive from self of the same size, in the same order (the host engine's rule). */
    private static void selfPairs(int rank, List<DeviceP2pOp> p2ps) {
        ArrayDeque<DeviceP2pOp> sends = new ArrayDeque<>();
        ArrayDeque<DeviceP2pOp> recvs = new ArrayDeque<>();
        for (DeviceP2pOp op : p2ps) {
            if (op.peer() == rank) {
                (op.send() ? sends : recvs).add(op);
            }
        }
        if (sends.size() != recvs.size()) {
            throw NcclException.of(Result.INVALID_USAGE, "rank " + rank + " sends " + sends.size()
                    + " messages to itself but receives " + recvs.size(), "pair every send to self with a recv in the same group");
        }
        while (!sends.isEmpty()) {
            DeviceP2pOp s = sends.poll();
            DeviceP2pOp r = recvs.poll();
            if (s.bytes() != r.bytes()) {
                throw NcclException.of(Result.INVALID_USAGE, "send to self of " + s.bytes() + " bytes but recv of "
                        + r.bytes(), "NCCL requires equal sizes for a rank's send and recv to itself");
            }
        }
    }
}
