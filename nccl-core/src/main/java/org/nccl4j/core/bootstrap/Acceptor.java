package org.nccl4j.core.bootstrap;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntPredicate;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.net.spi.auth.ConnectionAuth;

/**
 * Accepts connections on a listening socket and reads their {@link Wire} header (and, for some
 * kinds, their first frame) without ever blocking on one: a selector drives every pending
 * connection, so a client that sends garbage is dropped at once and one that stays silent is
 * dropped after the handshake window, while well-behaved connections complete meanwhile.
 * Dropped connections are logged (WARN for a wrong header, INFO NET for silence or an early close).
 * With {@link ConnectionAuth} each connection first gets a challenge frame, and its header must be
 * followed by the answer: a connection without the key is dropped before its header is believed.
 * A thread of the acceptor's own then accepts and sends the challenges, since a connecting rank
 * waits for its challenge while this rank may be busy connecting elsewhere (two ranks connecting
 * their rings to each other would otherwise wait for each other until the deadline).
 *
 * <p>Not thread-safe: one thread polls at a time.
 */
final class Acceptor implements Closeable {
    /** A connection whose header (and frame, if its kind has one) arrived and checked out. */
    record Arrival(SocketChannel channel, Wire.Header header, byte[] frame, InetSocketAddress remote, long seq) {
    }

    private static final class Pending {
        final SocketChannel ch;
        final InetSocketAddress remote;
        long seq;
        final long acceptedNanos;
        final ByteBuffer header = ByteBuffer.allocate(Wire.HEADER_BYTES);
        /** With authentication: the challenge sent, and the answer as it arrives. */
        byte[] challenge;
        ByteBuffer answer;
        Wire.Header parsed;
        FrameReader frame;

        Pending(SocketChannel ch, InetSocketAddress remote, long seq) {
            this.ch = ch;
            this.remote = remote;
            this.seq = seq;
            this.acceptedNanos = System.nanoTime();
        }
    }

    private final ServerSocketChannel server;
    private final Selector selector;
    private final Stopper stopper;
    private final long nonce;
    private final String owner;
    private final long handshakeNanos;
    private final IntPredicate acceptsKind;
    private final IntPredicate hasFrame;
    private final int maxFrame;
    private final ConnectionAuth auth;
    /** With authentication: accepts and challenges; hands the connections to the poller through {@link #challenged}. */
    private final Thread challenger;
    private final Selector acceptSelector;
    private final java.util.concurrent.ConcurrentLinkedQueue<Pending> challenged = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private volatile boolean closed;
    private long seq;

    /**
     * @param server      a bound listening socket; made non-blocking
     * @param stopper     whose selectors {@code stop} wakes
     * @param nonce       the communicator nonce every header must carry
     * @param owner       for log lines, e.g. "root 10.0.0.1:5000" or "rank 3"
     * @param handshakeMs how long a connection may take to deliver its header (and frame)
     * @param acceptsKind which header kinds are wanted here
     * @param hasFrame    which kinds carry a first frame to read before the arrival is reported
     * @param maxFrame    the longest such frame
     * @param auth        the authentication every connection must pass, or {@code null}
     * @throws IOException if the selector cannot be opened
     */
    Acceptor(ServerSocketChannel server, Stopper stopper, long nonce, String owner, long handshakeMs,
             IntPredicate acceptsKind, IntPredicate hasFrame, int maxFrame, ConnectionAuth auth) throws IOException {
        this.server = server;
        this.stopper = stopper;
        this.nonce = nonce;
        this.owner = owner;
        this.handshakeNanos = handshakeMs * 1_000_000L;
        this.acceptsKind = acceptsKind;
        this.hasFrame = hasFrame;
        this.maxFrame = maxFrame;
        this.auth = auth;
        this.selector = stopper.open();
        server.configureBlocking(false);
        if (auth == null) {
            this.acceptSelector = null;
            this.challenger = null;
            server.register(selector, SelectionKey.OP_ACCEPT);
        } else {
            this.acceptSelector = stopper.open();
            server.register(acceptSelector, SelectionKey.OP_ACCEPT);
            this.challenger = Thread.ofPlatform().daemon().name("nccl4j-bootstrap-auth " + owner).start(this::challenge);
        }
    }

    /** The challenger thread: accepts, sends each connection its challenge, hands it to the poller. */
    private void challenge() {
        try {
            while (!closed) {
                acceptSelector.select(Io.SLICE_MS);
                acceptSelector.selectedKeys().clear();
                for (SocketChannel ch; !closed && (ch = server.accept()) != null; ) {
                    InetSocketAddress remote = null;
                    try {
                        remote = (InetSocketAddress) ch.getRemoteAddress();
                        ch.configureBlocking(false);
                        Pending p = new Pending(ch, remote, 0);
                        p.challenge = ConnectionAuth.challenge();
                        p.answer = ByteBuffer.allocate(ConnectionAuth.TAG_BYTES);
                        ByteBuffer c = Wire.frame(p.challenge);
                        ch.write(c); // 20 bytes into a new connection's empty buffer
                        if (c.hasRemaining()) {
                            throw new IOException("could not send the authentication challenge");
                        }
                        challenged.add(p);
                        selector.wakeup();
                    } catch (IOException e) {
                        Log.info(Subsys.NET, "bootstrap %s: dropped connection from %s: %s", owner, SockAddr.text(remote),
                                e.getMessage());
                        Io.closeQuietly(ch);
                    }
                }
            }
        } catch (IOException | ClosedSelectorException | CancelledKeyException e) {
            if (!closed) {
                Log.info(Subsys.NET, "bootstrap %s: stopped accepting: %s", owner, e);
            }
        }
    }

    /**
     * Waits up to {@code waitMs} for activity and returns the connections that completed their
     * handshake, in the order they were accepted.
     *
     * @param waitMs how long to wait (0 = do not wait)
     * @return completed arrivals, possibly none
     * @throws IOException if the listening socket or selector failed (or were closed)
     */
    List<Arrival> poll(long waitMs) throws IOException {
        List<Arrival> done = new ArrayList<>();
        try {
            if (waitMs <= 0) {
                selector.selectNow();
            } else {
                selector.select(waitMs);
            }
            for (Pending p; (p = challenged.poll()) != null; ) {
                p.seq = seq++;
                try {
                    progress(p.ch.register(selector, SelectionKey.OP_READ, p), p, done);
                } catch (IOException e) {
                    Io.closeQuietly(p.ch);
                }
            }
            for (SelectionKey key : selector.selectedKeys()) {
                if (!key.isValid()) {
                    continue;
                }
                if (key.attachment() == null) {
                    if (key.isAcceptable()) {
                        acceptAll(done);
                    }
                } else if (key.isReadable()) {
                    progress(key, (Pending) key.attachment(), done);
                }
            }
            selector.selectedKeys().clear();
            expire();
        } catch (ClosedSelectorException | CancelledKeyException e) {
            throw new IOException("listener closed", e);
        }
        done.sort(Comparator.comparingLong(Arrival::seq));
        return done;
    }

    private void acceptAll(List<Arrival> done) throws IOException {
        while (true) {
            SocketChannel ch = server.accept();
            if (ch == null) {
                return;
            }
            InetSocketAddress remote = null;
            try {
                remote = (InetSocketAddress) ch.getRemoteAddress();
                ch.configureBlocking(false);
                Pending p = new Pending(ch, remote, seq++);
                SelectionKey key = ch.register(selector, SelectionKey.OP_READ, p);
                // Data often arrives with the connection: read it now rather than on the next select.
                progress(key, p, done);
            } catch (IOException e) {
                Log.info(Subsys.NET, "bootstrap %s: dropped connection from %s: %s", owner, SockAddr.text(remote), e.getMessage());
                Io.closeQuietly(ch);
            }
        }
    }

    private void progress(SelectionKey key, Pending p, List<Arrival> done) {
        try {
            if (p.parsed == null) {
                int r;
                while ((r = p.ch.read(p.header)) > 0) {
                    if (Wire.badMagic(p.header)) {
                        break;
                    }
                }
                if (Wire.badMagic(p.header)) {
                    drop(key, p, true, Wire.badMagicText(p.header));
                    return;
                }
                if (p.header.hasRemaining()) {
                    if (r < 0) {
                        drop(key, p, p.header.position() > 0, "closed the connection after " + p.header.position()
                                + " of " + Wire.HEADER_BYTES + " header bytes");
                    }
                    return;
                }
                Wire.Header h;
                try {
                    h = Wire.parseHeader(p.header, nonce);
                } catch (IllegalArgumentException e) {
                    drop(key, p, true, e.getMessage());
                    return;
                }
                if (!acceptsKind.test(h.kind())) {
                    drop(key, p, true, "unexpected " + Wire.kindName(h.kind()) + " connection from rank " + h.rank());
                    return;
                }
                p.parsed = h;
                if (hasFrame.test(h.kind())) {
                    p.frame = FrameReader.upTo(maxFrame);
                }
            }
            if (p.answer != null && p.answer.hasRemaining()) {
                int r;
                while ((r = p.ch.read(p.answer)) > 0) {
                    // Read what has arrived.
                }
                if (p.answer.hasRemaining()) {
                    if (r < 0) {
                        drop(key, p, true, "closed the connection before its authentication answer was complete");
                    }
                    return;
                }
                if (!auth.verify(Wire.AUTH_PURPOSE, p.challenge, p.header.array(), p.answer.array())) {
                    drop(key, p, true, "authentication failed (claims to be " + Wire.kindName(p.parsed.kind())
                            + " from rank " + p.parsed.rank() + "): no or another NCCL4J_AUTH_KEY, or a replayed answer");
                    return;
                }
            }
            if (p.frame != null && !p.frame.readFrom(p.ch)) {
                return;
            }
            key.cancel();
            done.add(new Arrival(p.ch, p.parsed, p.frame == null ? null : p.frame.payload(), p.remote, p.seq));
        } catch (ProtocolException e) {
            drop(key, p, true, e.getMessage());
        } catch (EOFException e) {
            drop(key, p, true, "closed the connection before its first frame was complete");
        } catch (IOException e) {
            drop(key, p, false, e.getMessage());
        }
    }

    private void expire() {
        long now = System.nanoTime();
        for (SelectionKey key : selector.keys()) {
            if (key.isValid() && key.attachment() instanceof Pending p && now - p.acceptedNanos > handshakeNanos) {
                drop(key, p, false, "sent no complete " + (p.parsed == null ? "header" : "frame") + " within "
                        + handshakeNanos / 1_000_000 + " ms (" + p.header.position() + " header bytes received)");
            }
        }
    }

    private void drop(SelectionKey key, Pending p, boolean warn, String why) {
        key.cancel();
        Io.closeQuietly(p.ch);
        if (warn) {
            Log.warn("bootstrap %s: dropped connection from %s: %s", owner, SockAddr.text(p.remote), why);
        } else {
            Log.info(Subsys.NET, "bootstrap %s: dropped connection from %s: %s", owner, SockAddr.text(p.remote), why);
        }
    }

    /** @return connections accepted whose handshake is not complete yet */
    int pending() {
        int n = 0;
        for (SelectionKey key : selector.keys()) {
            if (key.isValid() && key.attachment() != null) {
                n++;
            }
        }
        return n;
    }

    /** Closes the selector and every pending connection; the listening socket is the caller's. */
    @Override
    public void close() {
        closed = true;
        if (challenger != null) {
            stopper.release(acceptSelector);
            try {
                challenger.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            for (Pending p; (p = challenged.poll()) != null; ) {
                Io.closeQuietly(p.ch);
            }
        }
        try {
            for (SelectionKey key : selector.keys()) {
                if (key.attachment() instanceof Pending p) {
                    Io.closeQuietly(p.ch);
                }
            }
        } catch (ClosedSelectorException ignored) {
            // Already closed.
        }
        stopper.release(selector);
    }
}
