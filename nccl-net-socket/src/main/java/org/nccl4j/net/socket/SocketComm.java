package org.nccl4j.net.socket;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.nccl4j.net.spi.NetException;

/**
 * What both ends of a Socket connection share: the control connection, the data connections,
 * the request slots, the round-robin counter that assigns payload pieces to data connections,
 * and the first error, which ends the comm.
 */
abstract sealed class SocketComm permits SocketSendComm, SocketRecvComm {
    /** Requests in flight per comm ({@code NCCL_NET_MAX_REQUESTS} in NCCL 2.10). */
    static final int MAX_REQUESTS = 8;
    /** Smallest payload piece sent over a data connection ({@code MIN_CHUNKSIZE}). */
    static final long MIN_CHUNKSIZE = 64 * 1024;
    /** Bytes of the size header that precedes every message on the control connection. */
    static final int HEADER_SIZE = 8;
    /** How long close waits for Netty to close the connections. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

    final Channel control;
    final Channel[] data;
    /** The control connection driven by the calling threads, or {@code null} when Netty's event loops move the bytes. */
    final DirectSocket direct;
    final String peer;
    private final SocketRequest[] slots = new SocketRequest[MAX_REQUESTS];
    private final AtomicReference<NetException> failure = new AtomicReference<>();
    private volatile boolean closed;
    /** Next data connection for a payload piece; advanced identically at both ends. */
    int nextSock;

    /**
     * @param control the control connection
     * @param data    the data connections, by index
     * @param direct  the control connection taken off its event loop, or {@code null}
     * @param peer    the peer's address, for messages
     */
    SocketComm(Channel control, Channel[] data, DirectSocket direct, String peer) {
        this.control = control;
        this.data = data;
        this.direct = direct;
        this.peer = peer;
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new SocketRequest(this);
        }
    }

    /** @return data connections (0: everything goes over the control connection) */
    int nSocks() {
        return data.length;
    }

    /**
     * Whether a message's payload goes over the data connections, cut into pieces: only when it
     * makes two pieces or more ({@code 2 * MIN_CHUNKSIZE} bytes). A smaller one would be one
     * piece on one data connection, which gains nothing over the control connection but a hand-off
     * to another thread (NCCL's helper thread), so it goes on the control connection, after its
     * header, which the proxy moves itself ({@link DirectSocket}). Both ends decide by the size
     * alone.
     *
     * @param size the message size
     * @return whether its payload is cut into pieces on the data connections
     */
    boolean striped(long size) {
        return data.length > 0 && size >= 2 * MIN_CHUNKSIZE;
    }

    /**
     * The size of each payload piece ({@code max(MIN_CHUNKSIZE, ceil(size / nSocks))}).
     *
     * @param size   the message size
     * @param nSocks data connections, at least 1
     * @return the piece size
     */
    static long taskSize(long size, int nSocks) {
        return Math.max(MIN_CHUNKSIZE, Math.ceilDiv(size, nSocks));
    }

    /** @return the data connection for the next payload piece, advancing the counter */
    int nextDataSocket() {
        int sock = nextSock;
        nextSock = sock + 1 == data.length ? 0 : sock + 1;
        return sock;
    }

    /**
     * Claims a request slot for a message.
     *
     * @param segment the message buffer
     * @return the claimed slot
     * @throws NetException if the comm is closed or failed, or all slots are busy
     */
    SocketRequest acquire(MemorySegment segment) throws NetException {
        checkUsable();
        for (SocketRequest r : slots) {
            if (r.tryClaim(segment)) {
                if (closed || failure.get() != null) {
                    r.release();
                    checkUsable();
                }
                return r;
            }
        }
        throw new NetException(NetException.Kind.INTERNAL, "NET/Socket : unable to allocate requests (" + MAX_REQUESTS
                + " already in flight on the connection with " + peer + ")");
    }

    private void checkUsable() throws NetException {
        if (closed) {
            throw new NetException(NetException.Kind.INVALID_USAGE, "NET/Socket : connection with " + peer + " is closed");
        }
        NetException e = failure.get();
        if (e != null) {
            throw new NetException(e.kind(), e.getMessage(), e);
        }
    }

    /**
     * Ends the comm after an error: fails every request in flight and closes the connections
     * (their byte streams can no longer be trusted). The first error is kept.
     *
     * @param e what went wrong
     */
    void fail(NetException e) {
        if (failure.compareAndSet(null, e)) {
            failRequests(e);
            closeChannels();
        } else {
            failRequests(failure.get());
        }
    }

    private void failRequests(NetException e) {
        for (SocketRequest r : slots) {
            r.fail(e);
        }
    }

    /**
     * Makes progress on a direct connection: the bytes the socket takes or has move now, on the
     * calling thread. A failure ends the comm.
     */
    void progressDirect() {
        try {
            direct.progress();
        } catch (IOException | RuntimeException e) {
            fail(ioError("connection with peer " + peer + " failed : " + e.getMessage(), e));
        } catch (NetException e) {
            fail(e);
        }
    }

    /** @return a send failure, as a NetException naming the peer */
    NetException sendError(Throwable cause) {
        return ioError("send to peer " + peer + " failed : " + cause, cause);
    }

    /** An I/O failure is the peer's (REMOTE); anything else ours (SYSTEM). */
    private static NetException ioError(String what, Throwable cause) {
        NetException.Kind kind = cause instanceof IOException ? NetException.Kind.REMOTE : NetException.Kind.SYSTEM;
        return new NetException(kind, "NET/Socket : " + what, cause);
    }

    /**
     * Closes the comm: requests in flight fail, connections close, and this returns once Netty
     * has stopped touching them (so their buffers may be freed), unless called on an event loop.
     * Closing twice is harmless.
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        NetException e = new NetException(NetException.Kind.INVALID_USAGE, "NET/Socket : connection with " + peer
                + " was closed while the request was in flight");
        failure.compareAndSet(null, e);
        failRequests(e);
        ChannelFuture[] futures = closeChannels();
        if (control.eventLoop().inEventLoop()) {
            return;
        }
        long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
        for (ChannelFuture f : futures) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !f.awaitUninterruptibly(left / 1_000_000 + 1)) {
                break;
            }
        }
    }

    private ChannelFuture[] closeChannels() {
        if (direct != null) {
            direct.close();
        }
        ChannelFuture[] futures = new ChannelFuture[data.length + 1];
        futures[0] = control.close();
        for (int i = 0; i < data.length; i++) {
            futures[i + 1] = data[i].close();
        }
        return futures;
    }

    boolean isClosed() {
        return closed;
    }
}
