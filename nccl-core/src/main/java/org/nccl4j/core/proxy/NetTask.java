package org.nccl4j.core.proxy;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.conn.BuffSizes;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.net.spi.Comm;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.Request;

/**
 * What the NET send and receive tasks share: the network endpoint, the local protocol buffers
 * with their registrations and their two headers, a ring of at most {@link Net#MAX_REQUESTS} requests
 * (one per step slot), and the translation of plugin failures into {@link NcclException}s.
 *
 * <p>{@link #progress} and {@link #close} are synchronized: the proxy thread progresses the task
 * while a communicator teardown may close it from another thread, and the plugin must never see
 * a request tested after its endpoint was closed.
 */
public abstract sealed class NetTask implements ProxyTask permits NetSendTask, NetRecvTask {
    /** The network. */
    protected final Net net;
    /** The send or receive endpoint. */
    protected final Comm comm;
    /** The protocol buffers, each {@code NCCL_STEPS} slots, and their registrations. */
    protected final NetBuffers buffs;
    /** Their sizes. */
    protected final BuffSizes sizes;
    /** Receive header: {@code tail} and {@code sizesFifo}. */
    protected final MemorySegment recvMem;
    /** Send header: {@code head}. */
    protected final MemorySegment sendMem;
    /** Requests in flight, by step slot. */
    protected final Request[] requests = new Request[Net.MAX_REQUESTS];
    /** At most this many requests in flight: {@code min(8, net.maxRequests())}. */
    protected final int maxInFlight;
    /** The plugin call being made, for messages (a constant: the data path must not allocate). */
    String op = "progress";
    /** The step it concerns. */
    long opStep;
    private final String description;
    private final int peer;
    private boolean closed;

    /**
     * @param net         the network
     * @param comm        its endpoint for this connection
     * @param buffs       the protocol buffers, registered with {@code comm}
     * @param sizes       their sizes
     * @param recvMem     the receive header (tail, sizes, tags)
     * @param sendMem     the send header (head)
     * @param description the connection, for messages ({@code Channel 00 : 0[0] -> 1[0] [send] via NET/Socket/0})
     * @param peer        the rank at the other end, for messages
     */
    NetTask(Net net, Comm comm, NetBuffers buffs, BuffSizes sizes, MemorySegment recvMem, MemorySegment sendMem,
            String description, int peer) {
        this.net = net;
        this.comm = comm;
        this.buffs = buffs;
        this.sizes = sizes;
        this.recvMem = recvMem;
        this.sendMem = sendMem;
        this.maxInFlight = Math.max(1, Math.min(Net.MAX_REQUESTS, net.maxRequests()));
        this.description = description;
        this.peer = peer;
    }

    @Override
    public final synchronized boolean progress() {
        if (closed) {
            return false;
        }
        try {
            return step();
        } catch (NetException e) {
            throw failure(description, peer, op + " of step " + opStep, e);
        }
    }

    /**
     * Moves what can move now.
     *
     * @return whether anything moved
     * @throws NetException from the plugin
     */
    abstract boolean step() throws NetException;

    /**
     * @param p    a protocol
     * @param slot a step slot
     * @param size bytes
     * @return that part of the protocol's buffer
     */
    final MemorySegment slot(Protocol p, int slot, long size) {
        return buffs.buff(p).asSlice((long) slot * sizes.stepSize(p), size);
    }

    /** @return the connection, for messages */
    public final String description() {
        return description;
    }

    /**
     * @param problem what broke an invariant
     * @return an internal error naming this connection
     */
    final NcclException internal(String problem) {
        return NcclException.of(Result.INTERNAL_ERROR, description + ": " + problem, null);
    }

    /** @return whether {@link #close} ran */
    final synchronized boolean isClosed() {
        return closed;
    }

    /** Releases the registrations and closes the endpoint; later calls do nothing. */
    @Override
    public final synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Set<MemoryHandle> handles = Collections.newSetFromMap(new IdentityHashMap<>());
        handles.addAll(Arrays.asList(buffs.handles()));
        for (MemoryHandle h : handles) {
            try {
                net.deregMr(comm, h);
            } catch (NetException | RuntimeException e) {
                Log.info(Subsys.NET, "%s: deregMr failed: %s", description, e.getMessage());
            }
        }
        try {
            closeComm();
        } catch (NetException | RuntimeException e) {
            Log.info(Subsys.NET, "%s: close failed: %s", description, e.getMessage());
        }
    }

    /**
     * Closes the endpoint.
     *
     * @throws NetException from the plugin
     */
    abstract void closeComm() throws NetException;

    /**
     * Translates a plugin failure: the peer or the network going away ({@code REMOTE},
     * {@code SYSTEM}) is {@link Result#REMOTE_ERROR}, anything else is nccl4j's or the plugin's
     * bug ({@link Result#INTERNAL_ERROR}).
     *
     * @param description the connection
     * @param peer        the rank at the other end
     * @param operation   what was being done
     * @param e           the plugin's exception
     * @return the exception to throw or record as the communicator's async error
     */
    public static NcclException failure(String description, int peer, String operation, NetException e) {
        boolean remote = e.kind() == NetException.Kind.REMOTE || e.kind() == NetException.Kind.SYSTEM;
        return NcclException.of(remote ? Result.REMOTE_ERROR : Result.INTERNAL_ERROR,
                description + ": " + operation + " failed: " + e.getMessage(),
                remote ? "rank " + peer + " may have exited or the network between the ranks failed; see its log"
                        : "the network plugin reported a " + e.kind() + " error; run with NCCL_DEBUG=INFO", e);
    }
}
