package org.nccl4j.net.socket;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.nccl4j.net.spi.ListenComm;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetLogger;
import org.nccl4j.net.spi.auth.ConnectionAuth;
import org.nccl4j.net.spi.iface.AddressText;

/**
 * A listening Socket endpoint. Each accepted TCP connection first sends a {@link Handshake}
 * (with authentication: after this side's challenge, and followed by the answer);
 * connections are grouped by connector and placed by index (arrival order does not matter,
 * as in NCCL), and a group is ready for {@code accept} once all {@code nSocks + 1} arrived.
 */
final class SocketListenComm implements ListenComm {
    /**
     * Connectors whose sockets have not all arrived, at most: each holds connections, and a
     * stranger could otherwise open groups that never complete until the descriptors run out.
     */
    static final int MAX_PARTIAL = 256;

    /** The connections of one connector, by index; the control connection is last. */
    static final class Arrival {
        final Channel[] channels;
        final InboundStream[] streams;
        int count;
        /** The control connection handed to the calling threads, or {@code null}. */
        DirectSocket direct;

        Arrival(int n) {
            channels = new Channel[n];
            streams = new InboundStream[n];
        }
    }

    private final int nSocks;
    private final boolean direct;
    private final NetLogger log;
    private final ConnectionAuth auth;
    private final Map<Long, Arrival> partial = new HashMap<>();
    private final ArrayDeque<Arrival> ready = new ArrayDeque<>();
    private Channel server;
    private boolean closed;

    /**
     * @param nSocks data connections each connector opens
     * @param direct whether accepted control connections are handed to the calling threads ({@link DirectSocket})
     * @param log    where refused connections are reported
     * @param auth   the authentication every connection must pass, or {@code null}
     */
    SocketListenComm(int nSocks, boolean direct, NetLogger log, ConnectionAuth auth) {
        this.nSocks = nSocks;
        this.direct = direct;
        this.log = log;
        this.auth = auth;
    }

    synchronized void server(Channel channel) {
        server = channel;
    }

    /** Sets up an accepted connection: its receive stream, waiting first for the handshake. Event loop. */
    void initChild(Channel ch) {
        String peer = ch.remoteAddress() instanceof InetSocketAddress a ? AddressText.of(a) : String.valueOf(ch.remoteAddress());
        InboundStream stream = new InboundStream(peer);
        ch.config().setRecvByteBufAllocator(new SinkAllocator(stream));
        ch.pipeline().addLast(stream);
        byte[] challenge = auth == null ? null : ConnectionAuth.challenge();
        if (challenge != null) {
            ch.writeAndFlush(Unpooled.wrappedBuffer(challenge));
        }
        byte[] bytes = new byte[Handshake.SIZE + (auth == null ? 0 : ConnectionAuth.TAG_BYTES)];
        stream.expectLast(new Sink(MemorySegment.ofArray(bytes), new Sink.Listener() {
            @Override
            public void filled(Sink sink) {
                byte[] hs = Arrays.copyOf(bytes, Handshake.SIZE);
                boolean genuine = auth == null || auth.verify(Handshake.AUTH_PURPOSE, challenge, hs,
                        Arrays.copyOfRange(bytes, Handshake.SIZE, bytes.length));
                arrived(Handshake.decode(hs), genuine, ch, stream, peer);
            }

            @Override
            public void failed(NetException e) {
                // Closed before the handshake: nothing to place.
            }
        }));
    }

    private void arrived(Handshake hs, boolean genuine, Channel ch, InboundStream stream, String peer) {
        String refusal = null;
        Arrival complete = null;
        synchronized (this) {
            if (closed) {
                refusal = "the listener is closed";
            } else if (hs == null) {
                refusal = "wrong magic";
            } else if (!genuine) {
                refusal = "authentication failed: no or another NCCL4J_AUTH_KEY, or a replayed answer";
            } else if (hs.nSocks() != nSocks || hs.index() < 0 || hs.index() > nSocks) {
                refusal = "socket " + hs.index() + " of " + hs.nSocks() + " does not fit this listener's " + nSocks;
            } else if (nSocks > 0 && !partial.containsKey(hs.connectorId()) && partial.size() >= MAX_PARTIAL) {
                refusal = partial.size() + " connectors are still incomplete (a flood? set NCCL4J_AUTH_KEY)";
            } else {
                Arrival a = partial.computeIfAbsent(hs.connectorId(), id -> new Arrival(nSocks + 1));
                if (a.channels[hs.index()] != null) {
                    refusal = "socket index " + hs.index() + " arrived twice";
                } else {
                    a.channels[hs.index()] = ch;
                    a.streams[hs.index()] = stream;
                    if (++a.count == nSocks + 1) {
                        partial.remove(hs.connectorId());
                        complete = a;
                    }
                }
            }
        }
        if (refusal != null) {
            log.log(NetLogger.WARN, NetLogger.NET, "NET/Socket : dropping connection from " + peer + ": " + refusal);
            ch.close();
        } else if (complete != null && direct) {
            // The control connection (last by index) may have arrived before this one.
            Arrival a = complete;
            Channel control = a.channels[nSocks];
            InboundStream controlStream = a.streams[nSocks];
            DirectSocket.handOver(control, err -> handedOver(a, control, controlStream, peer, err));
        } else if (complete != null) {
            ready(complete, ch);
        }
    }

    /** On the control connection's former event loop: it no longer reads, so what it read ahead is final. */
    private void handedOver(Arrival a, Channel ch, InboundStream stream, String peer, Throwable err) {
        byte[] readAhead = stream.handOver();
        if (err != null) {
            log.log(NetLogger.WARN, NetLogger.NET, "NET/Socket : dropping connection from " + peer
                    + ": taking it off its event loop failed: " + err);
            collect(a, new ArrayList<>()).forEach(Channel::close); // its data connections too
            return;
        }
        a.direct = new DirectSocket(DirectSocket.descriptor(ch), peer, readAhead);
        ready(a, ch);
    }

    private void ready(Arrival a, Channel ch) {
        synchronized (this) {
            if (!closed) {
                ready.add(a);
                return;
            }
        }
        collect(a, new ArrayList<>()).forEach(Channel::close);
    }

    /** @return connectors some of whose sockets arrived, not all */
    synchronized int partialCount() {
        return partial.size();
    }

    /**
     * @return the next connector whose connections all arrived, or {@code null}
     * @throws NetException if the listener is closed
     */
    synchronized Arrival poll() throws NetException {
        if (closed) {
            throw new NetException(NetException.Kind.INVALID_USAGE, "NET/Socket : accept on a closed listener");
        }
        return ready.poll();
    }

    /** Closes the listening socket and every connection not yet accepted; waits for the listening socket. */
    void close() {
        List<Channel> toClose = new ArrayList<>();
        Channel s;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            s = server;
            for (Arrival a : partial.values()) {
                collect(a, toClose);
            }
            for (Arrival a : ready) {
                collect(a, toClose);
            }
            partial.clear();
            ready.clear();
        }
        toClose.forEach(Channel::close);
        if (s != null) {
            ChannelFuture f = s.close();
            if (!s.eventLoop().inEventLoop()) {
                f.awaitUninterruptibly(SocketComm.CLOSE_WAIT.toMillis());
            }
        }
    }

    private static List<Channel> collect(Arrival a, List<Channel> out) {
        for (Channel c : a.channels) {
            if (c != null) {
                out.add(c);
            }
        }
        return out;
    }
}
