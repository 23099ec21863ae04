package org.nccl4j.core.bootstrap;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.Deadline;
import org.nccl4j.net.spi.auth.ConnectionAuth;

/**
 * One rank's bootstrap network ({@code bootstrapInit}, {@code bootstrapAllGather},
 * {@code bootstrapSend}/{@code Recv}, {@code bootstrapBarrier}, {@code bootstrapClose}/{@code Abort}
 * of NCCL 2.10): the out-of-band TCP mesh over which ranks exchange what communicator init needs.
 *
 * <h2>Protocol</h2>
 * <ol>
 *   <li>The rank opens two listening sockets on its bootstrap address (ephemeral ports): one for
 *       ring and point-to-point connections, one for the root's reply.</li>
 *   <li>With more than 128 ranks it waits {@code rank} ms (NCCL's stagger), then connects to the
 *       root named in the unique id and sends a check-in: rank, nranks, how many ms of its init
 *       deadline are left, and both listen addresses.</li>
 *   <li>The root ({@link BootstrapRoot}) connects back to each rank's root listener with the
 *       listen address of the next rank, or with an error (rank count mismatch, duplicate rank,
 *       ranks that never checked in).</li>
 *   <li>The rank connects its ring send socket to the next rank and accepts the ring receive
 *       connection from the previous rank (ring 0 → 1 → … → n−1 → 0).</li>
 *   <li>A ring all-gather exchanges every rank's listen address; from then on
 *       {@link #send}/{@link #recv} open one connection per message, as NCCL does.</li>
 * </ol>
 *
 * <h2>Wire format</h2>
 * All integers big-endian (nccl4j ranks do not talk to C NCCL ranks). Every connection starts with
 * a 32-byte header from the connecting side:
 * <pre>
 *   i64 magic "NCCL4JBS" | i32 protocol version (1) | i64 communicator nonce (from the unique id)
 *   | i32 kind (1 check-in, 2 root reply, 3 ring, 4 p2p) | i32 sender rank (-1 = root) | i32 tag (p2p)
 * </pre>
 * followed by frames, each {@code i32 length | length bytes}:
 * <ul>
 *   <li>check-in: one frame {@code i32 nranks | i64 remaining ms | sockaddr listenRoot | sockaddr listen}
 *       (sockaddr = NCCL's 28-byte {@code union socketAddress} layout);</li>
 *   <li>root reply: one frame {@code u8 0 | sockaddr next} or {@code u8 1 | i32 result | i32 n | n bytes
 *       UTF-8 detail | i32 m | m bytes UTF-8 hint};</li>
 *   <li>ring: one frame per all-gather step, exactly the slice length; a frame length of −1
 *       announces an error notice ({@code i32 n | n bytes UTF-8}) from a rank whose ring broke, so
 *       the failure and the peer that caused it travel around the ring;</li>
 *   <li>p2p: one frame with the payload, then the sender closes.</li>
 * </ul>
 * Frame lengths are bounded (64 KiB on root connections, 1 GiB for p2p, the exact slice length on
 * the ring). A connection whose header is wrong (magic, version, another communicator's nonce,
 * unexpected kind), that sends garbage, or that delivers no header within the handshake window is
 * logged and closed without disturbing anything else.
 *
 * <h2>Waiting and failing</h2>
 * Every wait is bounded by the caller's {@link Deadline} and ends within about 100 ms of
 * {@link #abort()} or of the communicator's {@link AbortFlag} being set. Failures are
 * {@link NcclException}s naming this rank, the peer rank and address and what was awaited:
 * {@code TIMEOUT} (deadline; during init with the ranks the root says never arrived),
 * {@code REMOTE_ERROR} (a peer closed or reset its connection), {@code INVALID_USAGE} (rank count
 * mismatch or duplicate rank reported by the root; or abort), {@code SYSTEM_ERROR} (connect failed
 * after retrying refusals for {@code NCCL4J_CONNECT_TIMEOUT_MS}), {@code INTERNAL_ERROR} (a peer
 * sent a frame of the wrong size).
 *
 * <p>Thread safety: {@link #abort()} and {@link #close()} may be called from any thread. Receives
 * are serialised; all-gathers and barriers are serialised among themselves; sends may run
 * concurrently with anything.
 */
public final class Bootstrap implements AutoCloseable {
    /** How long a connection to a rank's listener may take to deliver its header. */
    static final long DEFAULT_HANDSHAKE_MS = 10_000;
    /** NCCL's stagger threshold. */
    static final int STAGGER_RANKS = 128;
    /**
     * Messages that arrived before anyone asked for them, at most (the oldest is dropped): each
     * holds a connection, and without authentication a stranger could otherwise open them until
     * the descriptors run out.
     */
    static final int MAX_UNEXPECTED = 1024;
    /**
     * The tag of the notice a rank whose communicator failed or was aborted leaves its peers
     * ({@link #announceGone}): their receives from it fail at once instead of at their deadline.
     * Bootstrap tags are small numbers and hashes with a low bit set: this one is neither. Its
     * payload is the sender's {@link #goneToken}.
     */
    static final int GONE_TAG = Integer.MIN_VALUE;
    private static final int TOKEN_BYTES = Long.BYTES;
    private static final SecureRandom TOKENS = new SecureRandom();
    /** How long a failure notice's token may take to arrive after its header. */
    private static final long GONE_READ_MS = 200;

    private final int rank;
    private final int nranks;
    private final long nonce;
    private final String ctx;
    private final InetSocketAddress rootAddress;
    private final AbortFlag abortFlag;
    private final Runnable abortAction;
    private final Stopper stopper;
    private final long connectTimeoutMs;
    /** Every connection's authentication ({@code NCCL4J_AUTH_KEY}), or {@code null}. */
    private final ConnectionAuth auth;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Guards both acceptors (and their closing) and the receive path. */
    private final ReentrantLock ioLock = new ReentrantLock();
    private final Object ringLock = new Object();

    private final ServerSocketChannel listen;
    private final InetSocketAddress listenAddress;
    private final Acceptor acceptor;
    private volatile ServerSocketChannel listenRoot;
    private volatile Acceptor rootAcceptor;
    private volatile SocketChannel ringSend;
    private volatile SocketChannel ringRecv;
    private InetSocketAddress nextAddress;
    private InetSocketAddress prevAddress;
    private volatile InetSocketAddress[] peers;
    /**
     * A random number this rank shares only with its peers (over the ring, during init): a failure
     * notice carries it, so one whoever knows the bootstrap id forges (without NCCL4J_AUTH_KEY) is
     * told apart and dropped instead of failing a rank's receives.
     */
    private final long goneToken = TOKENS.nextLong();
    private volatile long[] peerTokens;
    private volatile NcclException ringBroken;
    private boolean acceptorsClosed;

    /** A point-to-point connection whose header arrived before anyone asked for it. */
    private record Unexpected(int peer, int tag, SocketChannel channel, InetSocketAddress remote) {
    }

    /** Guarded by itself. */
    private final ArrayDeque<Unexpected> unexpected = new ArrayDeque<>();
    /** Ranks whose verified failure notice arrived; guarded by {@link #unexpected}. */
    private final Set<Integer> goneRanks = new HashSet<>();

    private Bootstrap(BootstrapId id, int rank, int nranks, InetAddress localAddress, AbortFlag abortFlag,
                      long connectTimeoutMs, long handshakeMs, ConnectionAuth auth) {
        this.rank = rank;
        this.auth = auth;
        this.nranks = nranks;
        this.nonce = id.nonce();
        this.rootAddress = id.root();
        this.ctx = "rank " + rank + " of " + nranks;
        this.abortFlag = abortFlag;
        this.stopper = new Stopper(abortFlag);
        this.connectTimeoutMs = connectTimeoutMs;
        ServerSocketChannel l = null;
        ServerSocketChannel lr = null;
        Acceptor a = null;
        try {
            l = ServerSocketChannel.open();
            l.bind(new InetSocketAddress(localAddress, 0), BootstrapRoot.BACKLOG);
            lr = ServerSocketChannel.open();
            lr.bind(new InetSocketAddress(localAddress, 0), BootstrapRoot.BACKLOG);
            this.listenAddress = (InetSocketAddress) l.getLocalAddress();
            a = new Acceptor(l, stopper, nonce, ctx, handshakeMs,
                    k -> k == Wire.KIND_RING || k == Wire.KIND_P2P, k -> false, 0, auth);
            this.rootAcceptor = new Acceptor(lr, stopper, nonce, ctx + " (root listener)", handshakeMs,
                    k -> k == Wire.KIND_ROOT_REPLY, k -> true, Wire.MAX_ROOT_FRAME, auth);
        } catch (IOException e) {
            if (a != null) {
                a.close();
            }
            Io.closeQuietly(l);
            Io.closeQuietly(lr);
            throw NcclException.of(Result.SYSTEM_ERROR, ctx + ": cannot listen on " + localAddress.getHostAddress()
                    + ": " + e.getMessage(), "check that the bootstrap address is an address of this host (NCCL_SOCKET_IFNAME)", e);
        }
        this.listen = l;
        this.listenRoot = lr;
        this.acceptor = a;
        this.abortAction = () -> shutdown("bootstrap aborted");
        if (abortFlag != null) {
            abortFlag.onAbort(abortAction);
        }
    }

    /**
     * Joins the communicator's bootstrap network, reading {@code NCCL4J_CONNECT_TIMEOUT_MS} from
     * {@link Config#global()}.
     *
     * @see #init(BootstrapId, int, int, InetAddress, Deadline, AbortFlag, Config)
     */
    public static Bootstrap init(BootstrapId id, int rank, int nranks, InetAddress localAddress, Deadline deadline,
                                 AbortFlag abort) {
        return init(id, rank, nranks, localAddress, deadline, abort, Config.global());
    }

    /**
     * Joins the communicator's bootstrap network: listens on {@code localAddress}, checks in with
     * the root, forms the ring and all-gathers every rank's listen address.
     *
     * @param id           the decoded unique id
     * @param rank         this rank, in [0, nranks)
     * @param nranks       the number of ranks, at least 1
     * @param localAddress this host's bootstrap address (not a wildcard address)
     * @param deadline     when init must be done by
     * @param abort        the communicator's abort flag, or {@code null}
     * @param config       where {@code NCCL4J_CONNECT_TIMEOUT_MS} and the authentication key are read
     * @return the bootstrap, ready for all-gathers, sends and receives
     * @throws NcclException INVALID_ARGUMENT for bad arguments, TIMEOUT, REMOTE_ERROR,
     *     INVALID_USAGE (reported by the root, or abort), SYSTEM_ERROR; see the class comment
     */
    public static Bootstrap init(BootstrapId id, int rank, int nranks, InetAddress localAddress, Deadline deadline,
                                 AbortFlag abort, Config config) {
        return init(id, rank, nranks, localAddress, deadline, abort,
                config == null ? Long.parseLong(Params.CONNECT_TIMEOUT_MS.defaultValue())
                        : Math.max(0, config.integer(Params.CONNECT_TIMEOUT_MS)),
                DEFAULT_HANDSHAKE_MS, config == null ? null : BootstrapAuth.of(config));
    }

    static Bootstrap init(BootstrapId id, int rank, int nranks, InetAddress localAddress, Deadline deadline,
                          AbortFlag abort, long connectTimeoutMs, long handshakeMs) {
        return init(id, rank, nranks, localAddress, deadline, abort, connectTimeoutMs, handshakeMs, null);
    }

    static Bootstrap init(BootstrapId id, int rank, int nranks, InetAddress localAddress, Deadline deadline,
                          AbortFlag abort, long connectTimeoutMs, long handshakeMs, ConnectionAuth auth) {
        if (id == null) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "bootstrap id is null", "decode the unique id first");
        }
        if (nranks < 1) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "nranks " + nranks + " is not positive", null);
        }
        if (rank < 0 || rank >= nranks) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "rank " + rank + " is not in [0, " + nranks + ")", null);
        }
        if (localAddress == null || localAddress.isAnyLocalAddress()) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "bootstrap local address " + localAddress
                    + " is null or a wildcard", "pass the address of the bootstrap interface (see NCCL_SOCKET_IFNAME)");
        }
        Objects.requireNonNull(deadline, "deadline");
        Bootstrap b = new Bootstrap(id, rank, nranks, localAddress, abort, connectTimeoutMs, handshakeMs, auth);
        try {
            b.join(deadline);
            // From now on the abort flag ends waits but leaves the sockets open: the communicator
            // closes the bootstrap, and until then its survivors rebuild through it (recoverySend).
            if (abort != null) {
                abort.remove(b.abortAction);
            }
            return b;
        } catch (RuntimeException e) {
            b.shutdown("bootstrap init failed");
            throw e;
        }
    }

    /** @return this rank */
    public int rank() {
        return rank;
    }

    /** @return the number of ranks */
    public int nranks() {
        return nranks;
    }

    /** @return the communicator nonce every connection carries */
    public long nonce() {
        return nonce;
    }

    /** @return where this rank accepts ring and point-to-point connections */
    public InetSocketAddress listenAddress() {
        return listenAddress;
    }

    /**
     * @param peer a rank
     * @return where that rank accepts point-to-point connections
     */
    public InetSocketAddress peerAddress(int peer) {
        checkPeer(peer, "peerAddress");
        return peers[peer];
    }

    // ------------------------------------------------------------------ init

    private void join(Deadline deadline) {
        Log.trace(Subsys.INIT, "rank %d nranks %d", rank, nranks);
        if (nranks > STAGGER_RANKS) {
            stagger(deadline);
        }
        ServerSocketChannel lr = listenRoot;
        InetSocketAddress listenRootAddress;
        try {
            listenRootAddress = (InetSocketAddress) lr.getLocalAddress();
        } catch (IOException e) {
            stopper.check(ctx + " checking in with the bootstrap root");
            throw NcclException.of(Result.SYSTEM_ERROR, ctx + ": root listener failed: " + e.getMessage(), null, e);
        }

        String root = SockAddr.text(rootAddress);
        String what = ctx + " connecting to the bootstrap root at " + root;
        try (SocketChannel ch = Io.connect(rootAddress, deadline, stopper, connectTimeoutMs, what)) {
            Wire.CheckIn ci = new Wire.CheckIn(nranks, deadline.remainingMillis(), listenRootAddress, listenAddress);
            String checkIn = ctx + " checking in with the bootstrap root at " + root;
            Io.write(ch, Io.authenticate(ch, auth, Wire.headerAndFrame(nonce, Wire.KIND_CHECKIN, rank, 0, ci.encode()),
                    deadline, stopper, checkIn), deadline, stopper, checkIn);
        } catch (IOException e) {
            Log.trace(Subsys.INIT, "%s: close after check-in failed: %s", ctx, e.getMessage());
        }

        Wire.Reply reply = awaitRootReply(deadline);
        if (reply.next() == null) {
            throw Io.failure(reply.result(), ctx + ": " + reply.detail(), reply.hint());
        }
        nextAddress = reply.next();
        int next = (rank + 1) % nranks;
        int prev = (rank - 1 + nranks) % nranks;

        SocketChannel rs = Io.connect(nextAddress, deadline, stopper, connectTimeoutMs,
                ctx + " connecting the ring to rank " + next + " at " + SockAddr.text(nextAddress));
        ringSend = rs;
        stopper.check(ctx + " connecting the ring");
        String ringWhat = ctx + " connecting the ring to rank " + next + " at " + SockAddr.text(nextAddress);
        Io.write(rs, Io.authenticate(rs, auth, Wire.header(nonce, Wire.KIND_RING, rank, 0), deadline, stopper, ringWhat),
                deadline, stopper, ringWhat);
        awaitRing(prev, deadline);

        int slot = SockAddr.BYTES + TOKEN_BYTES;
        byte[] all = allGather(ByteBuffer.allocate(slot).put(SockAddr.encode(listenAddress)).putLong(goneToken).array(),
                deadline);
        InetSocketAddress[] p = new InetSocketAddress[nranks];
        long[] tokens = new long[nranks];
        ByteBuffer b = ByteBuffer.wrap(all);
        for (int r = 0; r < nranks; r++) {
            try {
                p[r] = SockAddr.decode(b.position(r * slot));
            } catch (IllegalArgumentException e) {
                throw NcclException.of(Result.INTERNAL_ERROR, ctx + ": rank " + r + " sent a bad listen address: "
                        + e.getMessage(), Io.PROTOCOL_HINT);
            }
            tokens[r] = b.getLong(r * slot + SockAddr.BYTES);
        }
        peerTokens = tokens;
        peers = p;
        Log.trace(Subsys.INIT, "rank %d nranks %d - DONE", rank, nranks);
    }

    private void stagger(Deadline deadline) {
        long end = System.nanoTime() + rank * 1_000_000L;
        while (true) {
            stopper.check(ctx + " waiting its turn to contact the bootstrap root");
            long left = end - System.nanoTime();
            if (left <= 0) {
                return;
            }
            if (deadline.expired()) {
                throw Io.failure(Result.TIMEOUT, ctx + " timed out before contacting the bootstrap root ("
                        + deadline.total().toMillis() + " ms deadline)", Io.TIMEOUT_HINT);
            }
            try {
                Thread.sleep(Math.min(Io.SLICE_MS, Math.max(1, left / 1_000_000)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw NcclException.of(Result.SYSTEM_ERROR, ctx + ": interrupted during bootstrap init", null, e);
            }
        }
    }

    private Wire.Reply awaitRootReply(Deadline deadline) {
        String what = ctx + " waiting for the bootstrap root at " + SockAddr.text(rootAddress);
        ioLock.lock();
        try {
            while (true) {
                stopper.check(what);
                if (deadline.expired()) {
                    throw Io.failure(Result.TIMEOUT, what + " timed out (" + deadline.total().toMillis()
                                    + " ms deadline): the root never answered, so other ranks did not check in or the root is gone",
                            "check that every rank was started with the same unique id and nranks, and that rank 0's "
                                    + "process (the root) is alive; raise NCCL4J_INIT_TIMEOUT_MS if ranks are only slow to start");
                }
                List<Acceptor.Arrival> arrivals;
                try {
                    arrivals = rootAcceptor.poll(Math.min(Io.SLICE_MS, deadline.remainingMillis()));
                } catch (IOException e) {
                    stopper.check(what);
                    throw NcclException.of(Result.SYSTEM_ERROR, what + " failed: " + e.getMessage(), null, e);
                }
                for (Acceptor.Arrival a : arrivals) {
                    Io.closeQuietly(a.channel());
                    if (a.header().rank() != -1) {
                        Log.warn("bootstrap %s: dropped root reply from %s claiming to be rank %d", ctx,
                                SockAddr.text(a.remote()), a.header().rank());
                        continue;
                    }
                    try {
                        Wire.Reply r = Wire.Reply.decode(a.frame());
                        closeRootListener();
                        return r;
                    } catch (IllegalArgumentException e) {
                        Log.warn("bootstrap %s: dropped malformed root reply from %s: %s", ctx,
                                SockAddr.text(a.remote()), e.getMessage());
                    }
                }
            }
        } finally {
            afterIo();
            ioLock.unlock();
        }
    }

    private void closeRootListener() {
        Acceptor ra = rootAcceptor;
        if (ra != null) {
            ra.close();
            rootAcceptor = null;
        }
        Io.closeQuietly(listenRoot);
    }

    private void awaitRing(int prev, Deadline deadline) {
        String what = ctx + " waiting for the ring connection from rank " + prev;
        ioLock.lock();
        try {
            while (ringRecv == null) {
                stopper.check(what);
                if (deadline.expired()) {
                    throw Io.failure(Result.TIMEOUT, what + " timed out (" + deadline.total().toMillis()
                            + " ms deadline)", Io.TIMEOUT_HINT);
                }
                pollArrivals(what, deadline, prev);
            }
        } finally {
            afterIo();
            ioLock.unlock();
        }
    }

    /** Polls the listener once; queues p2p arrivals, takes the ring connection from {@code ringFrom} (-1: none). */
    private void pollArrivals(String what, Deadline deadline, int ringFrom) {
        List<Acceptor.Arrival> arrivals;
        try {
            arrivals = acceptor.poll(Math.min(Io.SLICE_MS, deadline.remainingMillis()));
        } catch (IOException e) {
            stopper.check(what);
            throw NcclException.of(Result.SYSTEM_ERROR, what + " failed: listener: " + e.getMessage(), null, e);
        }
        for (Acceptor.Arrival a : arrivals) {
            Wire.Header h = a.header();
            if (h.kind() == Wire.KIND_P2P) {
                if (h.rank() < 0 || h.rank() >= nranks) {
                    Log.warn("bootstrap %s: dropped connection from %s: sender rank %d out of range", ctx,
                            SockAddr.text(a.remote()), h.rank());
                    Io.closeQuietly(a.channel());
                    continue;
                }
                Log.trace(Subsys.INIT, "%s: message from rank %d tag %d arrived", ctx, h.rank(), h.tag());
                synchronized (unexpected) {
                    if (closed.get() || stopper.isStopped()) {
                        Io.closeQuietly(a.channel());
                    } else {
                        if (unexpected.size() >= MAX_UNEXPECTED) {
                            // The oldest goes: a receive that is waiting takes its message as it arrives.
                            Unexpected old = unexpected.pollFirst();
                            Log.warn("bootstrap %s: dropped the oldest waiting message (tag %d, from rank %d at %s): "
                                    + "%d messages wait to be received (a flood? set NCCL4J_AUTH_KEY)", ctx, old.tag(),
                                    old.peer(), SockAddr.text(old.remote()), MAX_UNEXPECTED);
                            Io.closeQuietly(old.channel());
                        }
                        unexpected.addLast(new Unexpected(h.rank(), h.tag(), a.channel(), a.remote()));
                    }
                }
            } else if (h.kind() == Wire.KIND_RING && h.rank() == ringFrom && ringRecv == null) {
                prevAddress = a.remote();
                ringRecv = a.channel();
                if (stopper.isStopped()) {
                    Io.closeQuietly(a.channel());
                }
            } else {
                Log.warn("bootstrap %s: dropped unexpected %s connection from rank %d at %s", ctx,
                        Wire.kindName(h.kind()), h.rank(), SockAddr.text(a.remote()));
                Io.closeQuietly(a.channel());
            }
        }
    }

    /** Called with {@link #ioLock} held after every wait: closes the acceptors if a stop came meanwhile. */
    private void afterIo() {
        if (stopper.isStopped()) {
            closeAcceptors();
        }
    }

    private void closeAcceptors() {
        if (!acceptorsClosed) {
            acceptorsClosed = true;
            acceptor.close();
            closeRootListener();
        }
    }

    // ------------------------------------------------------------------ collectives

    /**
     * Ring all-gather ({@code bootstrapAllGather}): nranks−1 steps; at step i this rank sends slice
     * (rank−i) mod n to the next rank and receives slice (rank−i−1) mod n from the previous one,
     * both at once. Every rank passes a slice of the same length.
     *
     * @param mine     this rank's slice
     * @param deadline when it must be done by
     * @return nranks × mine.length bytes, rank r's slice at r × mine.length
     * @throws NcclException TIMEOUT, REMOTE_ERROR naming the peer (also when a peer further back in
     *     the ring failed: its error travels along), INTERNAL_ERROR for a slice of another length,
     *     INVALID_USAGE after abort/close
     */
    public byte[] allGather(byte[] mine, Deadline deadline) {
        if (mine == null) {
            throw NcclException.of(Result.INVALID_ARGUMENT, ctx + ": allGather slice is null", null);
        }
        Objects.requireNonNull(deadline, "deadline");
        int len = mine.length;
        if ((long) len * nranks > Integer.MAX_VALUE - 16) {
            throw NcclException.of(Result.INVALID_ARGUMENT, ctx + ": allGather of " + nranks + " slices of " + len
                    + " bytes does not fit in one array", null);
        }
        byte[] data = new byte[len * nranks];
        System.arraycopy(mine, 0, data, rank * len, len);
        stopper.check(ctx + " allGather");
        if (nranks == 1) {
            return data;
        }
        synchronized (ringLock) {
            NcclException broken = ringBroken;
            if (broken != null) {
                throw NcclException.of(broken.result(), ctx + ": bootstrap ring is broken by an earlier failure: "
                        + broken.detail(), broken.hint(), broken);
            }
            Log.trace(Subsys.INIT, "rank %d nranks %d size %d", rank, nranks, len);
            int next = (rank + 1) % nranks;
            int prev = (rank - 1 + nranks) % nranks;
            // Before init's own all-gather completes only the ring connection's source address is known.
            InetSocketAddress[] p = peers;
            InetSocketAddress prevName = p != null ? p[prev] : prevAddress;
            for (int i = 0; i < nranks - 1; i++) {
                int sendSlice = Math.floorMod(rank - i, nranks);
                int recvSlice = Math.floorMod(rank - i - 1, nranks);
                String step = " (allGather step " + (i + 1) + " of " + (nranks - 1) + ")";
                String whatOut = ctx + " sending slice " + sendSlice + " to rank " + next + " at "
                        + SockAddr.text(nextAddress) + step;
                String whatIn = ctx + " receiving slice " + recvSlice + " from rank " + prev + " at "
                        + SockAddr.text(prevName) + step;
                ByteBuffer out = Wire.frame(data, sendSlice * len, len);
                FrameReader in = FrameReader.ring(data, recvSlice * len, len);
                try {
                    Io.transfer(ringSend, out, ringRecv, in, deadline, stopper, whatOut, whatIn);
                } catch (NcclException e) {
                    breakRing(e, out);
                    throw e;
                }
                if (in.notice() != null) {
                    NcclException e = Io.failure(Result.REMOTE_ERROR, ctx + ": rank " + prev + " at "
                            + SockAddr.text(prevName) + " reported a failure" + step + ": " + in.notice(), Io.REMOTE_HINT);
                    breakRing(e, out);
                    throw e;
                }
            }
            Log.trace(Subsys.INIT, "rank %d nranks %d size %d - DONE", rank, nranks, len);
        }
        return data;
    }

    /** Marks the ring broken, tells the next rank why (if our outgoing stream is at a frame boundary) and closes it. */
    private void breakRing(NcclException e, ByteBuffer out) {
        ringBroken = e;
        if (stopper.isStopped()) {
            return;
        }
        SocketChannel rs = ringSend;
        if (rs != null && (out.position() == 0 || !out.hasRemaining())) {
            try {
                rs.write(Wire.errorNotice(e.detail())); // one non-blocking attempt; best effort
            } catch (IOException ignored) {
                // The next rank will see the connection close instead.
            }
        }
        Io.closeQuietly(rs);
        Io.closeQuietly(ringRecv);
    }

    /**
     * Sends one tagged message ({@code bootstrapSend}): a new connection to the peer's listener,
     * header (this rank, tag), one frame, close.
     *
     * @param peer     the receiving rank (may be this rank)
     * @param tag      the tag the receiver asks for
     * @param data     the payload (at most 1 GiB)
     * @param deadline when it must be delivered to the peer's socket by
     */
    public void send(int peer, int tag, byte[] data, Deadline deadline) {
        send(peer, tag, data, deadline, stopper);
    }

    /**
     * {@link #send} that works while the communicator's abort flag is set (after a failure), until
     * this bootstrap is closed: how the survivors of a failed communicator rebuild one.
     */
    public void recoverySend(int peer, int tag, byte[] data, Deadline deadline) {
        send(peer, tag, data, deadline, stopper.ignoringFlag());
    }

    private void send(int peer, int tag, byte[] data, Deadline deadline, Stopper stopper) {
        checkPeer(peer, "send");
        if (data == null) {
            throw NcclException.of(Result.INVALID_ARGUMENT, ctx + ": send to rank " + peer + " of null data", null);
        }
        if (data.length > Wire.MAX_FRAME) {
            throw NcclException.of(Result.INVALID_ARGUMENT, ctx + ": send of " + data.length + " bytes exceeds the "
                    + Wire.MAX_FRAME + "-byte bootstrap message limit", null);
        }
        Objects.requireNonNull(deadline, "deadline");
        InetSocketAddress to = peers[peer];
        String what = ctx + " sending a message (tag " + tag + ", " + data.length + " bytes) to rank " + peer + " at "
                + SockAddr.text(to);
        stopper.check(what);
        try (SocketChannel ch = Io.connect(to, deadline, stopper, connectTimeoutMs, what)) {
            Io.write(ch, Io.authenticate(ch, auth, Wire.headerAndFrame(nonce, Wire.KIND_P2P, rank, tag, data), deadline,
                    stopper, what), deadline, stopper, what);
        } catch (IOException e) {
            Log.trace(Subsys.INIT, "%s: close failed: %s", what, e.getMessage());
        }
    }

    /**
     * Receives the message a peer sent with this tag ({@code bootstrapRecv}): first from the
     * unexpected-message queue, else accepting connections (queueing those for other (peer, tag)
     * pairs, skipping stray ones) until it arrives. Matching is exact on both.
     *
     * @param peer     the sending rank
     * @param tag      the tag it used
     * @param deadline when it must have arrived by
     * @return the payload
     * @throws NcclException TIMEOUT naming the peer and tag (and what did arrive), REMOTE_ERROR if
     *     the peer closed mid-message, INVALID_USAGE after abort/close
     */
    public byte[] recv(int peer, int tag, Deadline deadline) {
        return recv(peer, tag, deadline, stopper);
    }

    /** {@link #recv} that works while the communicator's abort flag is set; see {@link #recoverySend}. */
    public byte[] recoveryRecv(int peer, int tag, Deadline deadline) {
        return recv(peer, tag, deadline, stopper.ignoringFlag());
    }

    private byte[] recv(int peer, int tag, Deadline deadline, Stopper stopper) {
        checkPeer(peer, "recv");
        Objects.requireNonNull(deadline, "deadline");
        String what = ctx + " waiting for a message (tag " + tag + ") from rank " + peer + " at " + SockAddr.text(peers[peer]);
        stopper.check(what);
        Unexpected match;
        ioLock.lock();
        try {
            while ((match = takeUnexpected(peer, tag)) == null) {
                stopper.check(what);
                if (goneNoticeFrom(peer, deadline)) {
                    throw NcclException.of(Result.REMOTE_ERROR, what + ": rank " + peer + "'s communicator failed or was "
                            + "aborted (it said so before it closed), so the message will not come",
                            "a peer failed (its log says why); abort this communicator, or shrink it to the ranks that are left");
                }
                if (deadline.expired()) {
                    throw Io.failure(Result.TIMEOUT, what + " timed out (" + deadline.total().toMillis()
                                    + " ms deadline)" + pendingSummary(),
                            "rank " + peer + " has not sent it: it is slow, stuck or gone, or sent with another tag; check its log");
                }
                pollArrivals(what, deadline, -1);
            }
        } finally {
            afterIo();
            ioLock.unlock();
        }
        try {
            return Io.readFrame(match.channel(), Wire.MAX_FRAME, deadline, stopper,
                    ctx + " receiving a message (tag " + tag + ") from rank " + peer + " at " + SockAddr.text(match.remote()));
        } finally {
            Io.closeQuietly(match.channel());
        }
    }

    /** @return messages that arrived and wait to be received */
    int unexpectedCount() {
        synchronized (unexpected) {
            return unexpected.size();
        }
    }

    /**
     * Tells every peer that this rank's communicator failed or was aborted ({@link #GONE_TAG}), so
     * a peer waiting for a message from it (a connection made on first use) fails at once; best
     * effort, within {@code budget}: peers not reached by then find out at their deadline.
     * Works while the abort flag is set, until this bootstrap is closed.
     *
     * @param budget when to stop trying
     */
    public void announceGone(Deadline budget) {
        if (peers == null || closed.get()) {
            return;
        }
        for (int i = 1; i < nranks && !budget.expired(); i++) {
            int peer = (rank + i) % nranks;
            try {
                send(peer, GONE_TAG, ByteBuffer.allocate(TOKEN_BYTES).putLong(goneToken).array(), budget,
                        stopper.ignoringFlag());
            } catch (NcclException e) {
                Log.trace(Subsys.INIT, "%s: no failure notice for rank %d: %s", ctx, peer, e.getMessage());
            }
        }
    }

    /**
     * @return whether {@code peer} left a failure notice carrying its token; a notice with another
     *     payload (forged: it knew the bootstrap id but not the token) is dropped with a warning
     */
    private boolean goneNoticeFrom(int peer, Deadline deadline) {
        Unexpected notice;
        while ((notice = takeUnexpected(peer, GONE_TAG)) != null) {
            byte[] payload = null;
            // The sender wrote header and token at once: a notice that trickles is not one.
            Deadline shortly = Deadline.afterMillis(Math.max(1, Math.min(GONE_READ_MS, deadline.remainingMillis())));
            try {
                payload = Io.readFrame(notice.channel(), TOKEN_BYTES, shortly, stopper.ignoringFlag(),
                        ctx + " reading a failure notice from rank " + peer);
            } catch (NcclException e) {
                Log.trace(Subsys.INIT, "%s: unreadable failure notice: %s", ctx, e.getMessage());
            } finally {
                Io.closeQuietly(notice.channel());
            }
            if (payload != null && payload.length == TOKEN_BYTES && ByteBuffer.wrap(payload).getLong() == peerTokens[peer]) {
                // Kept for every later receive from this peer.
                synchronized (unexpected) {
                    goneRanks.add(peer);
                }
                return true;
            }
            Log.warn("bootstrap %s: dropped a failure notice claiming to be from rank %d at %s: it does not carry that "
                    + "rank's token (forged? set NCCL4J_AUTH_KEY)", ctx, peer, SockAddr.text(notice.remote()));
        }
        synchronized (unexpected) {
            return goneRanks.contains(peer);
        }
    }

    /** @return the first arrived message from {@code peer} with {@code tag}, removed, or null */
    private Unexpected takeUnexpected(int peer, int tag) {
        synchronized (unexpected) {
            for (Iterator<Unexpected> it = unexpected.iterator(); it.hasNext(); ) {
                Unexpected u = it.next();
                if (u.peer() == peer && u.tag() == tag) {
                    it.remove();
                    return u;
                }
            }
            return null;
        }
    }

    private String pendingSummary() {
        synchronized (unexpected) {
            if (unexpected.isEmpty()) {
                return "; no other messages are waiting";
            }
            StringBuilder sb = new StringBuilder("; messages waiting from other (rank, tag): ");
            int n = 0;
            for (Unexpected u : unexpected) {
                if (n++ == 16) {
                    sb.append(", ...");
                    break;
                }
                sb.append(n > 1 ? ", " : "").append('(').append(u.peer()).append(", ").append(u.tag()).append(')');
            }
            return sb.toString();
        }
    }

    /**
     * NCCL 2.10's dissemination barrier ({@code bootstrapBarrier}): for mask = 1, 2, 4, … below
     * ranks.length, send 4 bytes to {@code ranks[(me + mask) % n]} and receive from
     * {@code ranks[(me − mask + n) % n]}, all with {@code tag}.
     *
     * @param ranks    the global ranks taking part, this rank among them
     * @param tag      the tag (distinct from other concurrent traffic)
     * @param deadline when it must be done by
     */
    public void barrier(int[] ranks, int tag, Deadline deadline) {
        if (ranks == null) {
            throw NcclException.of(Result.INVALID_ARGUMENT, ctx + ": barrier ranks are null", null);
        }
        int me = -1;
        for (int i = 0; i < ranks.length; i++) {
            if (ranks[i] < 0 || ranks[i] >= nranks) {
                throw NcclException.of(Result.INVALID_ARGUMENT, ctx + ": barrier rank " + ranks[i] + " is not in [0, "
                        + nranks + ")", null);
            }
            if (ranks[i] == rank) {
                me = i;
            }
        }
        if (me < 0) {
            throw NcclException.of(Result.INVALID_ARGUMENT, ctx + ": barrier ranks do not include this rank", null);
        }
        int n = ranks.length;
        if (n == 1) {
            return;
        }
        Log.trace(Subsys.INIT, "rank %d nranks %d tag %x - ENTER", me, n, tag);
        byte[] token = new byte[4];
        for (int mask = 1; mask < n; mask <<= 1) {
            send(ranks[(me + mask) % n], tag, token, deadline);
            recv(ranks[(me - mask + n) % n], tag, deadline);
        }
        Log.trace(Subsys.INIT, "rank %d nranks %d tag %x - DONE", me, n, tag);
    }

    private void checkPeer(int peer, String op) {
        if (peer < 0 || peer >= nranks) {
            throw NcclException.of(Result.INVALID_ARGUMENT, ctx + ": " + op + " peer rank " + peer + " is not in [0, "
                    + nranks + ")", null);
        }
        if (peers == null) {
            throw NcclException.of(Result.INVALID_USAGE, ctx + ": " + op + " before bootstrap init finished", null);
        }
    }

    // ------------------------------------------------------------------ teardown

    /** Closes every socket at once; idempotent, callable from any thread. Waits in progress fail promptly. */
    public void abort() {
        shutdown("bootstrap aborted");
    }

    /**
     * {@code bootstrapClose}: closes the bootstrap, warning if messages arrived that nobody received
     * ("Unexpected connections are not empty"); idempotent.
     */
    @Override
    public void close() {
        if (closed.get()) {
            return;
        }
        boolean locked = false;
        try {
            locked = ioLock.tryLock(200, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (locked && !stopper.isStopped()) {
                try {
                    pollArrivals(ctx + " closing", Deadline.afterMillis(0), -1);
                } catch (NcclException ignored) {
                    // Closing anyway.
                }
            }
            List<String> left = new ArrayList<>();
            synchronized (unexpected) {
                for (Unexpected u : unexpected) {
                    if (u.tag() != GONE_TAG) {
                        left.add("(rank " + u.peer() + ", tag " + u.tag() + ")");
                    }
                }
            }
            if (!left.isEmpty() && !stopper.isStopped()) {
                Log.warn("Unexpected connections are not empty: %s has %d message(s) nobody received: %s", ctx,
                        left.size(), String.join(", ", left));
            }
            shutdown("bootstrap closed");
        } finally {
            if (locked) {
                ioLock.unlock();
            }
        }
    }

    private void shutdown(String why) {
        stopper.stop(why);
        if (closed.compareAndSet(false, true)) {
            if (abortFlag != null) {
                abortFlag.remove(abortAction);
            }
            Log.trace(Subsys.INIT, "%s: %s", ctx, why);
        }
        // Closing is idempotent; repeating it catches a channel opened while an abort was under way.
        Io.closeQuietly(ringSend);
        Io.closeQuietly(ringRecv);
        Io.closeQuietly(listen);
        Io.closeQuietly(listenRoot);
        synchronized (unexpected) {
            for (Unexpected u : unexpected) {
                Io.closeQuietly(u.channel());
            }
            unexpected.clear();
        }
        if (ioLock.tryLock()) {
            try {
                closeAcceptors();
            } finally {
                ioLock.unlock();
            }
        }
    }

    @Override
    public String toString() {
        return "Bootstrap[" + ctx + ", listen " + SockAddr.text(listenAddress) + ", root " + SockAddr.text(rootAddress)
                + (closed.get() ? ", closed" : "") + "]";
    }
}
