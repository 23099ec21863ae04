package org.nccl4j.net.socket;

import io.netty.channel.ChannelFutureListener;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.Request;

/**
 * One of a comm's {@value SocketComm#MAX_REQUESTS} request slots (NCCL's
 * {@code ncclSocketRequest}), reused from message to message so that {@code test} allocates
 * nothing.
 *
 * <p>A request is done when all its parts are: the header, plus each piece of payload
 * written or received. Parts complete on Netty's event loops; the owner polls {@link #state()}.
 * A slot is reused only after it completed cleanly (all parts accounted for); any failure
 * fails the whole comm, so no late event can reach a reused slot.
 */
final class SocketRequest implements Request {
    static final int FREE = 0;
    static final int ACTIVE = 1;
    static final int DONE = 2;
    static final int FAILED = 3;

    final SocketComm comm;
    private final AtomicInteger state = new AtomicInteger(FREE);
    private final AtomicInteger parts = new AtomicInteger();
    private final AtomicReference<NetException> error = new AtomicReference<>();
    /** The 8-byte size header a receive reads first. */
    final MemorySegment header = MemorySegment.ofArray(new byte[SocketComm.HEADER_SIZE]);
    /** Counts a completed write, or fails the comm. */
    final ChannelFutureListener writeListener;
    /** Counts a filled payload sink, or fails the comm. */
    final Sink.Listener partListener;
    private MemorySegment data;
    private volatile long size;

    SocketRequest(SocketComm comm) {
        this.comm = comm;
        this.writeListener = future -> {
            if (future.isSuccess()) {
                partDone();
            } else {
                comm.fail(comm.sendError(future.cause()));
            }
        };
        this.partListener = new Sink.Listener() {
            @Override
            public void filled(Sink sink) {
                partDone();
            }

            @Override
            public void failed(NetException e) {
                comm.fail(e);
            }
        };
    }

    /** Claims a free slot for a message on {@code data}; the caller then adds parts and posts them. */
    boolean tryClaim(MemorySegment segment) {
        if (!state.compareAndSet(FREE, ACTIVE)) {
            return false;
        }
        data = segment;
        size = segment.byteSize();
        error.set(null);
        // One guard part, dropped by post(), so completions cannot finish the request mid-posting.
        parts.set(1);
        return true;
    }

    MemorySegment data() {
        return data;
    }

    long size() {
        return size;
    }

    void size(long value) {
        size = value;
    }

    int state() {
        return state.get();
    }

    NetException error() {
        return error.get();
    }

    /** Adds {@code n} parts that must complete before the request does. */
    void addParts(int n) {
        parts.addAndGet(n);
    }

    /** One part completed. */
    void partDone() {
        if (parts.decrementAndGet() == 0) {
            state.compareAndSet(ACTIVE, DONE);
        }
    }

    /** Fails the request if it is in flight; the first error wins. */
    void fail(NetException e) {
        if (state.get() == ACTIVE) {
            error.compareAndSet(null, e);
            state.compareAndSet(ACTIVE, FAILED);
        }
    }

    /** Returns the slot to the free list after the owner saw it finish. */
    void release() {
        data = null;
        state.set(FREE);
    }
}
