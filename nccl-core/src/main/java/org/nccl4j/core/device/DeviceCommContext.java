package org.nccl4j.core.device;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.nccl4j.NcclException;
import org.nccl4j.core.conn.ConnAllocator;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.proto.Protocol;

/**
 * What communicator init hands a device backend whose kernels run on the device: the rank, the
 * channels' rings from the topology search, the bootstrap for exchanging connection info, and the
 * communicator's abort and failure hooks.
 */
public interface DeviceCommContext {
    /** @return this rank */
    int rank();

    /** @return number of ranks */
    int nranks();

    /** @return this rank's device, as {@link DeviceBackend#open} returned it */
    LocalDevice device();

    /** @return the communicator's parameters */
    Config config();

    /** @return the channels' rings and trees, channel 0 first */
    List<DeviceChannel> channels();

    /**
     * How a collective runs: the algorithm, protocol, channels and chunking the host engine would
     * use for the same call on this communicator.
     *
     * @param op a checked collective
     * @return its plan (with one rank: Ring, Simple, one channel)
     */
    DeviceCollPlan plan(DeviceCollOp op);

    /**
     * @param protocol a protocol
     * @return bytes of one FIFO slot of its buffer ({@code NCCL_BUFFSIZE}, {@code NCCL_LL_BUFFSIZE} or
     *     {@code NCCL_LL128_BUFFSIZE}, divided by {@code NCCL_STEPS})
     */
    int stepBytes(Protocol protocol);

    /**
     * @param peer a rank
     * @return whether that rank runs in this process (its device pointers are valid here)
     */
    boolean inThisProcess(int peer);

    /**
     * NCCL's transport choice for the connections between this rank and a peer: P2P where the
     * topology allows it ({@code NCCL_P2P_LEVEL}, {@code NCCL_P2P_DISABLE}), else SHM on the same
     * host ({@code NCCL_SHM_DISABLE}), else NET. Both ranks of a pair get the same answer.
     *
     * @param peer another rank
     * @return how this rank reaches it
     */
    DeviceTransport transport(int peer);

    /**
     * NCCL's P2P read mode ({@code p2p.cc}): the Simple protocol's FIFO between this rank and a
     * P2P peer lies in the sender's memory and the receiver reads it (by default on NVLink
     * between SM80 GPUs; {@code NCCL_P2P_READ_ENABLE} decides otherwise). Both ranks of a pair
     * get the same answer; false for a peer not reached through P2P.
     *
     * @param peer another rank
     * @return whether the pair's P2P connections read
     */
    boolean p2pRead(int peer);

    /**
     * Connects network links through the communicator's network plugin and proxy thread (NCCL's
     * NET transport, staged in host memory): receivers listen, the plugin's handles go to the
     * senders over the bootstrap, senders connect and receivers accept, within
     * {@code NCCL4J_CONNECT_TIMEOUT_MS}. Pairwise: each link must be matched by the peer's opposite
     * one, asked for with the same {@code tag}.
     *
     * @param links  this rank's ends
     * @param tag    keeps this call's bootstrap messages apart from another call's, 0..255
     * @param memory where each connection's local memory comes from (the backend's kernels reach it)
     * @return the connections, by link
     * @throws NcclException SYSTEM_ERROR when no network is usable, TIMEOUT when a peer does not connect
     */
    Map<DeviceNetLink, DeviceNetConn> connectNet(List<DeviceNetLink> links, int tag, ConnAllocator memory);

    /**
     * Lets the proxy finish what the kernels posted on these connections, as NCCL's proxy thread
     * runs until its operations are done (a kernel ends once it has posted its last step, before
     * the network carried it): returns once they are all {@link DeviceNetConn#drained}, the
     * communicator is aborted, or a few seconds passed. Call it before closing them.
     *
     * @param conns connections from {@link #connectNet}
     */
    void awaitNetDrained(Collection<DeviceNetConn> conns);

    /**
     * Every rank's blob, bounded by the init deadline ({@code bootstrapAllGather}).
     *
     * @param mine this rank's bytes; every rank passes the same length
     * @return all blobs, rank r's at {@code r * mine.length}
     */
    byte[] allGather(byte[] mine);

    /** @return the longest an operation may wait for a peer ({@code NCCL4J_OP_TIMEOUT_MS}), in nanoseconds */
    long opTimeoutNanos();

    /**
     * @param action run once when the communicator is aborted (by the user, a failure or a timeout), at
     *     once if it already was; it must be quick and must not throw
     */
    void onAbort(Runnable action);

    /** @return the reason the communicator was aborted, or {@code null} */
    String abortReason();

    /**
     * Records a failure of this rank's device work: it aborts the communicator and becomes its
     * async error.
     *
     * @param where what failed
     * @param e     why
     */
    void fail(String where, NcclException e);
}
