package org.nccl4j.net.socket;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.auth.ConnectionAuth;
import org.nccl4j.net.spi.iface.AddressText;
import org.nccl4j.net.spi.iface.Unreachable;

/**
 * A {@code connect} in progress: {@code nSocks + 1} TCP connections being opened and their
 * handshakes written. {@code connect} returns {@code null} until all are done, so it never
 * blocks and never waits for the peer's {@code accept} (the kernel completes the TCP handshake
 * from the listen backlog).
 */
final class PendingConnect {
    /** Netty's connect timeout: NCCL 2.9 gives up on a silent peer after the kernel's SYN retries. */
    static final int CONNECT_TIMEOUT_MS = 30_000;
    /** How long an unreachable peer host is tried again (NCCL 2.10 retries a refused socket connect for 20 s). */
    static final long UNREACHABLE_RETRY_MS = 20_000;
    static final long UNREACHABLE_RETRY_INTERVAL_MS = 100;

    private final SocketHandle handle;
    private final String peer;
    private final Channel[] channels;
    private final PeerWatch[] watches;
    private final AtomicInteger ready = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final boolean direct;
    private volatile boolean abandoned;

    private PendingConnect(SocketHandle handle, boolean direct) {
        this.handle = handle;
        this.direct = direct;
        this.peer = AddressText.of(handle.address());
        this.channels = new Channel[handle.nSocks() + 1];
        this.watches = new PeerWatch[handle.nSocks() + 1];
    }

    /**
     * Starts opening the connections.
     *
     * @param handle    the listener's handle
     * @param transport which Netty channels to use
     * @param loops     the event loops, control connection first, then data connection {@code i} at {@code i + 1}
     * @param direct    whether the control connection is handed to the calling threads ({@link DirectSocket})
     *                  once introduced (data connections stay on their event loops)
     * @param auth      the authentication, or {@code null}: with it each connection waits for the
     *                  listener's challenge and sends the answer after its handshake
     * @return the attempt
     */
    static PendingConnect start(SocketHandle handle, NettyTransport transport, EventLoop[] loops, boolean direct,
                                ConnectionAuth auth) {
        PendingConnect p = new PendingConnect(handle, direct);
        long connectorId = ThreadLocalRandom.current().nextLong();
        int nSocks = handle.nSocks();
        long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(UNREACHABLE_RETRY_MS);
        for (int i = 0; i <= nSocks; i++) {
            p.open(i, transport, i == nSocks ? loops[0] : loops[i + 1], auth, connectorId, giveUp);
        }
        return p;
    }

    /**
     * Opens connection {@code index} (the control connection is {@code nSocks}); while the peer's
     * host is unreachable (no route, network down: a link that flaps) it tries again every
     * {@value #UNREACHABLE_RETRY_INTERVAL_MS} ms until {@code giveUp}. A refused connection
     * fails at once: the listener is gone.
     */
    private void open(int index, NettyTransport transport, EventLoop loop, ConnectionAuth auth, long connectorId,
                      long giveUp) {
        int nSocks = handle.nSocks();
        PeerWatch watch = new PeerWatch(peer);
        watch.owner(this::fail);
        watches[index] = watch;
        Challenge challenge = auth == null ? null : new Challenge();
        ChannelFuture cf = new Bootstrap().group(loop).channel(transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MS)
                .handler(challenge == null ? watch : new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(challenge, watch);
                    }
                })
                .connect(handle.address());
        channels[index] = cf.channel();
        if (abandoned) {
            cf.channel().close(); // abandoned while this retry was being scheduled
        }
        byte[] hs = new Handshake(connectorId, index, nSocks).bytes();
        cf.addListener(connected -> {
            if (!connected.isSuccess()) {
                if (Unreachable.is(connected.cause()) && System.nanoTime() < giveUp && live()) {
                    loop.schedule(() -> {
                        if (live()) {
                            open(index, transport, loop, auth, connectorId, giveUp);
                        }
                    }, UNREACHABLE_RETRY_INTERVAL_MS, TimeUnit.MILLISECONDS);
                } else {
                    fail(connected.cause());
                }
            } else if (challenge == null) {
                introduce(cf.channel(), index == nSocks, Unpooled.wrappedBuffer(hs));
            } else {
                challenge.then(c -> introduce(cf.channel(), index == nSocks, Unpooled.wrappedBuffer(hs,
                        auth.answer(Handshake.AUTH_PURPOSE, c, hs))));
            }
        });
    }

    /** @return whether no connection failed and the caller still waits for this attempt */
    private boolean live() {
        return failure.get() == null && !abandoned;
    }

    /** Writes a connection's handshake (and answer); on the channel's event loop. */
    private void introduce(Channel ch, boolean control, ByteBuf handshake) {
        ch.writeAndFlush(handshake).addListener(written -> {
            if (!written.isSuccess()) {
                fail(written.cause());
            } else if (direct && control) {
                DirectSocket.handOver(ch, this::introduced);
            } else {
                ready.incrementAndGet();
            }
        });
    }

    /**
     * Collects the listener's challenge, the first {@value ConnectionAuth#CHALLENGE_BYTES} bytes
     * of the connection (the listener sends nothing else), then leaves the pipeline.
     */
    private static final class Challenge extends ChannelInboundHandlerAdapter {
        private final byte[] bytes = new byte[ConnectionAuth.CHALLENGE_BYTES];
        private int filled;
        private Consumer<byte[]> then;

        /** @param action run with the challenge once it is in (at once if it is); on the event loop */
        void then(Consumer<byte[]> action) {
            then = action;
            if (filled == bytes.length) {
                action.accept(bytes);
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                int n = Math.min(b.readableBytes(), bytes.length - filled);
                b.readBytes(bytes, filled, n);
                filled += n;
            } finally {
                b.release();
            }
            if (filled == bytes.length) {
                ctx.pipeline().remove(this);
                if (then != null) {
                    then.accept(bytes);
                }
            }
        }
    }

    private void introduced(Throwable handOverError) {
        if (handOverError == null) {
            ready.incrementAndGet();
        } else {
            fail(handOverError);
        }
    }

    private void fail(Throwable cause) {
        failure.compareAndSet(null, cause);
    }

    /**
     * @return the send comm once every connection is up and introduced, else {@code null}
     * @throws NetException {@code SYSTEM} if a connection failed (e.g. refused: the listener is gone)
     */
    SocketSendComm poll() throws NetException {
        Throwable cause = failure.get();
        if (cause != null) {
            abandon();
            String why = cause instanceof NetException ne ? ne.getMessage() : String.valueOf(cause);
            throw new NetException(NetException.Kind.SYSTEM, "NET/Socket : connect to " + peer + " failed : " + why, cause);
        }
        if (ready.get() < channels.length) {
            return null;
        }
        int nSocks = handle.nSocks();
        Channel control = channels[nSocks];
        DirectSocket d = direct ? new DirectSocket(DirectSocket.descriptor(control), peer, new byte[0]) : null;
        SocketSendComm comm = new SocketSendComm(control, Arrays.copyOf(channels, nSocks), d, peer);
        for (PeerWatch w : watches) {
            w.owner(comm::fail);
        }
        return comm;
    }

    /** Closes whatever was opened. */
    void abandon() {
        abandoned = true;
        for (Channel c : channels) {
            if (c != null) {
                c.close();
            }
        }
    }
}
