package org.nccl4j.net.socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.IOException;
import java.util.ArrayDeque;
import org.nccl4j.net.spi.NetException;

/**
 * The receiving side of one TCP connection: a FIFO of {@link Sink}s that the incoming bytes
 * fill in order. Large reads go straight into the sink's memory ({@link SinkAllocator}).
 * Bytes that arrive before their sink is posted are read ahead into a buffer of at most
 * {@value #READ_AHEAD} bytes (so a stream of small messages does not stop and restart reading
 * for each one); beyond that, reading stops until a sink is posted, and TCP flow control holds
 * the sender back.
 *
 * <p>Everything but {@link #expect} runs on the channel's event loop.
 */
final class InboundStream extends ChannelInboundHandlerAdapter {
    /** Reads at least this large go straight into native sinks; smaller ones are copied. */
    static final int LEND_MIN = 16 * 1024;
    /** Largest single read into a sink (a ByteBuf holds at most 2 GiB). */
    static final int LEND_MAX = 1 << 30;
    /** Size of copy reads: big enough to take a header and a small payload in one system call. */
    static final int COPY_READ = 64 * 1024;
    /** Most bytes read ahead of the posted sinks. */
    static final int READ_AHEAD = 256 * 1024;

    private final String peer;
    private final ArrayDeque<Sink> sinks = new ArrayDeque<>();
    private volatile Channel channel;
    private CompositeByteBuf leftover;
    private ByteBuf lent;
    private NetException failure;
    /** Set when the peer closed: bytes already read ahead stay receivable, later ones cannot come. */
    private NetException eof;
    /** Set when the connection's reads moved to a {@link DirectSocket}: this stream is done. */
    private boolean handedOver;

    /** @param peer the remote address, for error messages */
    InboundStream(String peer) {
        this.peer = peer;
    }

    /**
     * Queues a sink from any thread; it is filled after the sinks queued before it.
     *
     * @param sink the sink
     */
    void expect(Sink sink) {
        Channel ch = channel;
        if (ch.eventLoop().inEventLoop()) {
            expectLast(sink);
        } else {
            ch.eventLoop().execute(() -> expectLast(sink));
        }
    }

    /** Queues a sink at the end; event loop only. */
    void expectLast(Sink sink) {
        if (failure != null) {
            sink.fail(failure);
            return;
        }
        sinks.addLast(sink);
        feedLeftover();
        failUnsatisfiable();
        updateReading();
    }

    /** Queues a sink ahead of all others (the payload that follows a header just read); event loop only. */
    void expectFirst(Sink sink) {
        if (failure != null) {
            sink.fail(failure);
            return;
        }
        sinks.addFirst(sink);
        feedLeftover();
        failUnsatisfiable();
        updateReading();
    }

    /** Binds the stream to its channel; called when the handler is added, before any read. */
    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
    }

    /** Chooses the buffer for the next socket read. */
    ByteBuf allocate(ByteBufAllocator alloc) {
        Sink head = sinks.peekFirst();
        if (head != null && head.lendable() && head.remaining() >= LEND_MIN) {
            lent = head.lend(LEND_MAX);
            return lent;
        }
        lent = null;
        return alloc.ioBuffer(COPY_READ);
    }

    /** The size of the next read, for Netty's bookkeeping. */
    int guess() {
        Sink head = sinks.peekFirst();
        return head != null && head.lendable() && head.remaining() >= LEND_MIN
                ? (int) Math.min(head.remaining(), LEND_MAX) : COPY_READ;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        if (buf == lent) {
            // The socket read straight into the head sink's memory.
            lent = null;
            Sink head = sinks.peekFirst();
            int n = buf.readableBytes();
            buf.release();
            if (head != null && head.advance(n)) {
                sinks.pollFirst();
                head.complete();
            }
        } else if (leftover != null && leftover.isReadable()) {
            // Bytes already read ahead come first.
            leftover.addComponent(true, buf);
            feedLeftover();
        } else {
            feed(buf);
            if (buf.isReadable()) {
                if (leftover == null) {
                    leftover = ctx.alloc().compositeBuffer(Integer.MAX_VALUE);
                }
                leftover.addComponent(true, buf);
            } else {
                buf.release();
            }
        }
        updateReading();
    }

    private void feedLeftover() {
        if (leftover == null || !leftover.isReadable()) {
            return;
        }
        feed(leftover);
        leftover.discardReadComponents();
    }

    private int readAhead() {
        return leftover == null ? 0 : leftover.readableBytes();
    }

    /** Copies readable bytes into the sinks in order; completion callbacks may queue new sinks first. */
    private void feed(ByteBuf buf) {
        while (buf.isReadable() && failure == null) {
            Sink head = sinks.peekFirst();
            if (head == null) {
                return;
            }
            if (head.copyFrom(buf)) {
                sinks.pollFirst();
                head.complete();
            }
        }
    }

    /**
     * Ends this stream because the connection's reads move elsewhere; event loop only, after
     * the channel left its event loop.
     *
     * @return the bytes read ahead of any sink, which the new reader delivers first
     */
    byte[] handOver() {
        handedOver = true;
        byte[] bytes = new byte[readAhead()];
        if (leftover != null) {
            leftover.readBytes(bytes);
            leftover.release();
            leftover = null;
        }
        return bytes;
    }

    /** Reads while a sink waits or read-ahead has room: back-pressure instead of unbounded buffering. */
    private void updateReading() {
        Channel ch = channel;
        if (ch == null || failure != null || handedOver) {
            return;
        }
        boolean want = !sinks.isEmpty() || readAhead() < READ_AHEAD;
        if (ch.config().isAutoRead() != want) {
            ch.config().setAutoRead(want);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // A peer that sent its last message and closed must not lose it: deliver what was read
        // ahead, and fail only the receives those bytes cannot complete.
        feedLeftover();
        eof = new NetException(NetException.Kind.REMOTE, "NET/Socket : connection closed by remote peer " + peer);
        failUnsatisfiable();
        ctx.fireChannelInactive();
    }

    /** After the peer closed: once the read-ahead bytes are used up, every waiting sink fails. */
    private void failUnsatisfiable() {
        if (eof != null && readAhead() == 0) {
            failAll(eof);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        NetException.Kind kind = cause instanceof IOException ? NetException.Kind.REMOTE : NetException.Kind.INTERNAL;
        failAll(new NetException(kind, "NET/Socket : receive from peer " + peer + " failed : " + cause, cause));
        ctx.close();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (eof != null && readAhead() > 0) {
            // The peer's last bytes wait for their receives, which may never come (the comm
            // closed): a heap copy, which the garbage collector frees with this stream, keeps
            // them, and the pooled buffers go back now.
            CompositeByteBuf heap = Unpooled.compositeBuffer(Integer.MAX_VALUE);
            heap.addComponent(true, Unpooled.wrappedBuffer(ByteBufUtil.getBytes(leftover)));
            leftover.release();
            leftover = heap;
            return;
        }
        failAll(eof != null ? eof
                : new NetException(NetException.Kind.INTERNAL, "NET/Socket : connection to " + peer + " was closed"));
    }

    /** Fails every waiting sink with the first error; later sinks fail at once. */
    private void failAll(NetException error) {
        if (failure == null) {
            failure = error;
        }
        if (leftover != null) {
            leftover.release();
            leftover = null;
        }
        for (Sink s; (s = sinks.pollFirst()) != null; ) {
            s.fail(failure);
        }
    }
}
