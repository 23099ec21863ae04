package org.nccl4j.core.bootstrap;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.wait.Deadline;
import org.nccl4j.net.spi.auth.ConnectionAuth;

/**
 * The bootstrap root ({@code bootstrapCreateRoot} and the {@code bootstrapRoot} thread): collects
 * every rank's check-in, then tells each rank where the next rank listens, then exits.
 *
 * <p>Behaviour, beyond NCCL 2.10 (which silently ends the root thread on a bad check-in and leaves
 * every rank blocked):
 * <ul>
 *   <li>A selector drives all connections, so a client that sends garbage or nothing never stalls
 *       the root; such connections are logged and closed ({@link Acceptor}).</li>
 *   <li>The first check-in fixes {@code nranks}. A check-in with another rank count, or a rank that
 *       already checked in, fails the whole bootstrap: every rank that checked in (and the
 *       offender) receives an error naming what happened, e.g. "rank 1 of 4 checked in twice (from
 *       10.0.0.1:1234 and 10.0.0.2:2345)" or "mismatch in rank count: 4 vs 3".</li>
 *   <li>Each rank reports how much of its init deadline is left. When the earliest of those
 *       deadlines (less a margin of 10%, at least 200 ms) comes with ranks still missing, every rank
 *       that checked in receives a TIMEOUT error listing the missing ranks.</li>
 *   <li>After a failure the root keeps answering late check-ins with the same error until the last
 *       known rank deadline has passed, then exits.</li>
 *   <li>Until the first rank checks in, the root waits at most its first-check-in deadline (the
 *       init timeout for the root of {@code Nccl.getUniqueId()}), then logs that nobody came and
 *       exits, releasing its port; NCCL's root would wait for ever.</li>
 * </ul>
 * The thread is a daemon; {@link #close()} stops it at once.
 */
public final class BootstrapRoot implements AutoCloseable {
    /** How long a connection to the root may take to deliver its header and check-in. */
    static final long DEFAULT_HANDSHAKE_MS = 10_000;
    /** NCCL's listen backlog. */
    static final int BACKLOG = 16384;
    /** Longest wait between checks when idle. */
    private static final long IDLE_POLL_MS = 500;
    /** Deadline margin: at least this many ms ... */
    static final long MIN_MARGIN_MS = 200;
    /** ... or this fraction of the rank's remaining time, whichever is larger. */
    static final double MARGIN_FRACTION = 0.10;

    private static final String USAGE_HINT =
            "every rank must call init with the same unique id and nranks, each with a distinct rank in [0, nranks)";
    private static final String MISSING_HINT = "check that the missing ranks were started, use the same unique id "
            + "and can reach the root; look at their logs; raise NCCL4J_INIT_TIMEOUT_MS if they are only slow to start";

    private final ServerSocketChannel server;
    private final InetSocketAddress address;
    private final long nonce;
    private final String name;
    private final Stopper stopper = new Stopper(null);
    private final Acceptor acceptor;
    private final Thread thread;
    private final ConnectionAuth auth;
    /** When to give up if no rank has checked in; {@code null}: only {@link #close()} ends the wait. */
    private final Deadline firstCheckIn;

    /** One check-in as the root saw it. */
    private record Arrived(int rank, Wire.CheckIn info, InetSocketAddress from, long arrivalNanos, long rootDeadlineNanos,
                           long rankDeadlineNanos) {
    }

    private BootstrapRoot(ServerSocketChannel server, InetSocketAddress address, long nonce, Deadline firstCheckIn,
                          long handshakeMs, ConnectionAuth auth) throws IOException {
        this.server = server;
        this.auth = auth;
        this.firstCheckIn = firstCheckIn;
        this.address = address;
        this.nonce = nonce;
        this.name = "root " + SockAddr.text(address);
        this.acceptor = new Acceptor(server, stopper, nonce, name, handshakeMs,
                k -> k == Wire.KIND_CHECKIN, k -> true, Wire.MAX_ROOT_FRAME, auth);
        this.thread = Thread.ofPlatform().daemon().name("nccl4j-bootstrap-root-" + address.getPort())
                .unstarted(this::run);
    }

    /**
     * Binds the root's listening socket and starts its thread.
     *
     * @param bindAddress where to listen; port 0 picks an ephemeral port, a fixed port (the
     *                    {@code NCCL_COMM_ID} case) sets {@code SO_REUSEADDR}
     * @param nonce       the communicator nonce of the unique id
     * @param firstCheckIn how long from now to wait for the first rank; then the root exits
     * @param auth        the authentication of every connection ({@link BootstrapAuth#of}), or {@code null}
     * @return the running root
     * @throws NcclException INVALID_ARGUMENT for a null or unresolved address, SYSTEM_ERROR if the
     *     socket cannot be bound (e.g. the port is in use)
     */
    public static BootstrapRoot start(InetSocketAddress bindAddress, long nonce, Duration firstCheckIn,
                                      ConnectionAuth auth) {
        return start(bindAddress, nonce, Deadline.after(firstCheckIn), DEFAULT_HANDSHAKE_MS, auth);
    }

    /** For tests: a root that waits for its first check-in until closed. */
    static BootstrapRoot start(InetSocketAddress bindAddress, long nonce) {
        return start(bindAddress, nonce, null, DEFAULT_HANDSHAKE_MS, null);
    }

    /** For tests: a root that waits until closed, with a handshake limit of {@code handshakeMs}. */
    static BootstrapRoot start(InetSocketAddress bindAddress, long nonce, long handshakeMs) {
        return start(bindAddress, nonce, null, handshakeMs, null);
    }

    /** For tests: a root that waits until closed, with a handshake limit, and authenticates with {@code auth}. */
    static BootstrapRoot start(InetSocketAddress bindAddress, long nonce, long handshakeMs, ConnectionAuth auth) {
        return start(bindAddress, nonce, null, handshakeMs, auth);
    }

    private static BootstrapRoot start(InetSocketAddress bindAddress, long nonce, Deadline firstCheckIn,
                                       long handshakeMs, ConnectionAuth auth) {
        if (bindAddress == null || bindAddress.isUnresolved()) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "bootstrap root bind address " + bindAddress
                    + " is null or unresolved", "pass the address of the bootstrap interface");
        }
        ServerSocketChannel server = null;
        try {
            server = ServerSocketChannel.open();
            if (bindAddress.getPort() != 0) {
                server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            }
            server.bind(bindAddress, BACKLOG);
            InetSocketAddress bound = (InetSocketAddress) server.getLocalAddress();
            BootstrapRoot root = new BootstrapRoot(server, bound, nonce, firstCheckIn, handshakeMs, auth);
            Log.trace(Subsys.INIT, "bootstrap root listening on %s", SockAddr.text(bound));
            root.thread.start();
            return root;
        } catch (IOException e) {
            Io.closeQuietly(server);
            String hint = bindAddress.getPort() != 0
                    ? "port " + bindAddress.getPort() + " may be in use (an earlier job?): choose another NCCL_COMM_ID port"
                    : "check that " + SockAddr.text(bindAddress) + " is an address of this host (NCCL_SOCKET_IFNAME)";
            throw NcclException.of(Result.SYSTEM_ERROR, "bootstrap root cannot listen on " + SockAddr.text(bindAddress)
                    + ": " + e.getMessage(), hint, e);
        }
    }

    /** @return the address the root listens on (the real port), for the unique id */
    public InetSocketAddress address() {
        return address;
    }

    /** @return whether the root thread still runs */
    public boolean isRunning() {
        return thread.isAlive();
    }

    /**
     * Waits for the root thread to end (it ends by itself once every rank has its answer).
     *
     * @param timeout how long to wait
     * @return whether it ended
     * @throws InterruptedException if interrupted
     */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return thread.join(timeout);
    }

    /** Stops the root thread and closes its socket; idempotent, returns within about a second. */
    @Override
    public void close() {
        if (stopper.stop("bootstrap root closed")) {
            Log.trace(Subsys.INIT, "bootstrap %s closing", name);
        }
        if (Thread.currentThread() != thread) {
            try {
                if (!thread.join(Duration.ofSeconds(1))) {
                    thread.interrupt();
                    thread.join(Duration.ofMillis(500));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (!thread.isAlive()) {
            Io.closeQuietly(server);
        }
    }

    // ---------------------------------------------------------------- root thread

    private int nranks = -1;
    private Arrived[] byRank;
    private int count;
    private final List<Arrived> checkedIn = new ArrayList<>();
    private long earliestDeadline = Long.MAX_VALUE;
    private long lingerUntil;
    private boolean anyArrival;
    private long firstArrival;
    private Wire.Reply failure;

    private void run() {
        Log.trace(Subsys.INIT, "BEGIN");
        try {
            while (!stopper.isStopped()) {
                long now = System.nanoTime();
                long wait = IDLE_POLL_MS;
                if (failure != null) {
                    wait = Math.min(wait, millisUntil(now, lingerUntil));
                } else if (count > 0) {
                    wait = Math.min(wait, millisUntil(now, earliestDeadline));
                } else if (firstCheckIn != null) {
                    wait = Math.min(wait, firstCheckIn.remainingMillis() + 1);
                }
                for (Acceptor.Arrival a : acceptor.poll(Math.max(1, wait))) {
                    Io.closeQuietly(a.channel());
                    onCheckIn(a);
                }
                now = System.nanoTime();
                if (failure == null && nranks > 0 && count == nranks) {
                    sendAddresses();
                    Log.trace(Subsys.INIT, "SENT OUT ALL %d HANDLES", nranks);
                    break;
                }
                if (failure == null && count > 0 && now - earliestDeadline >= 0) {
                    failMissing(now);
                }
                if (failure == null && count == 0 && firstCheckIn != null && firstCheckIn.expired()) {
                    Log.warn("bootstrap %s: no rank checked in within %d ms; the root exits and its unique id is "
                            + "no longer usable (raise NCCL4J_INIT_TIMEOUT_MS if ranks start later)", name,
                            firstCheckIn.total().toMillis());
                    break;
                }
                if (failure != null && now - lingerUntil >= 0) {
                    Log.trace(Subsys.INIT, "bootstrap %s: giving up after the failure", name);
                    break;
                }
            }
        } catch (IOException e) {
            if (!stopper.isStopped()) {
                Log.warn("bootstrap %s: listening socket failed: %s", name, e.getMessage());
            }
        } catch (NcclException e) {
            if (!stopper.isStopped()) {
                Log.warn("bootstrap %s: %s", name, e.getMessage());
            }
        } catch (RuntimeException e) {
            Log.warn("bootstrap %s: unexpected failure, root stops: %s", name, e);
        } finally {
            stopper.stop("bootstrap root finished");
            acceptor.close();
            Io.closeQuietly(server);
            Log.trace(Subsys.INIT, "DONE");
        }
    }

    private static long millisUntil(long now, long when) {
        long ms = (when - now) / 1_000_000;
        return Math.max(1, ms + 1);
    }

    private void onCheckIn(Acceptor.Arrival a) {
        int rank = a.header().rank();
        Wire.CheckIn info;
        try {
            info = Wire.CheckIn.decode(a.frame());
        } catch (IllegalArgumentException e) {
            Log.warn("bootstrap %s: dropped malformed check-in from %s: %s", name, SockAddr.text(a.remote()), e.getMessage());
            return;
        }
        long now = System.nanoTime();
        long remaining = Math.max(0, info.remainingMs());
        long margin = Math.max(MIN_MARGIN_MS, (long) (remaining * MARGIN_FRACTION));
        long rankDeadline = now + Math.min(remaining, Long.MAX_VALUE / 4_000_000L) * 1_000_000L;
        long rootDeadline = now + Math.max(0, Math.min(remaining - margin, Long.MAX_VALUE / 4_000_000L)) * 1_000_000L;
        Arrived ci = new Arrived(rank, info, a.remote(), now, rootDeadline, rankDeadline);
        lingerUntil = anyArrival ? later(lingerUntil, rankDeadline) : rankDeadline;
        anyArrival = true;
        Log.trace(Subsys.INIT, "Received connect from rank %d total %d", rank, count + 1);

        if (failure != null) {
            String late = failure.result() == Result.TIMEOUT
                    ? failure.detail() + "; rank " + rank + " checked in after the root gave up" : failure.detail();
            reply(ci, Wire.Reply.error(failure.result(), late, failure.hint()));
            return;
        }
        if (info.nranks() < 1 || rank < 0 || rank >= info.nranks()) {
            String msg = "bootstrap " + name + ": rank " + rank + " from " + SockAddr.text(a.remote())
                    + " checked in with an invalid rank count " + info.nranks();
            Log.warn("%s", msg);
            reply(ci, Wire.Reply.error(Result.INVALID_ARGUMENT, msg, USAGE_HINT));
            return;
        }
        if (nranks < 0) {
            nranks = info.nranks();
            byRank = new Arrived[nranks];
            firstArrival = now;
        } else if (info.nranks() != nranks) {
            Arrived first = checkedIn.get(0);
            fail(Result.INVALID_USAGE, String.format("bootstrap root: mismatch in rank count: %d vs %d "
                            + "(rank %d from %s checked in with %d ranks, rank %d from %s with %d)",
                    nranks, info.nranks(), first.rank(), SockAddr.text(first.from()), nranks, rank,
                    SockAddr.text(a.remote()), info.nranks()), USAGE_HINT, ci);
            return;
        }
        if (byRank[rank] != null) {
            fail(Result.INVALID_USAGE, String.format("bootstrap root: rank %d of %d checked in twice (from %s and %s)",
                    rank, nranks, SockAddr.text(byRank[rank].from()), SockAddr.text(a.remote())), USAGE_HINT, ci);
            return;
        }
        byRank[rank] = ci;
        count++;
        checkedIn.add(ci);
        earliestDeadline = count == 1 ? rootDeadline : earlier(earliestDeadline, rootDeadline);
    }

    private static long later(long a, long b) {
        return b - a > 0 ? b : a;
    }

    private static long earlier(long a, long b) {
        return b - a < 0 ? b : a;
    }

    private void fail(Result result, String detail, String hint, Arrived offender) {
        Log.warn("%s", detail);
        failure = Wire.Reply.error(result, detail, hint);
        for (Arrived ci : checkedIn) {
            reply(ci, failure);
        }
        if (offender != null) {
            reply(offender, failure);
        }
    }

    private void failMissing(long now) {
        List<Integer> missing = new ArrayList<>();
        for (int r = 0; r < nranks; r++) {
            if (byRank[r] == null) {
                missing.add(r);
            }
        }
        long waited = (now - firstArrival) / 1_000_000;
        String detail = "bootstrap root: " + (missing.size() == 1 ? "rank " : "ranks ") + ranges(missing) + " of " + nranks
                + " never checked in within " + waited + " ms";
        fail(Result.TIMEOUT, detail, MISSING_HINT, null);
    }

    /**
     * @param ranks sorted rank numbers
     * @return e.g. "3, 5, 9-12"; at most 64 entries, then "and N more"
     */
    static String ranges(List<Integer> ranks) {
        StringBuilder sb = new StringBuilder();
        int entries = 0;
        int i = 0;
        while (i < ranks.size()) {
            int j = i;
            while (j + 1 < ranks.size() && ranks.get(j + 1) == ranks.get(j) + 1) {
                j++;
            }
            if (entries == 64) {
                sb.append(" and ").append(ranks.size() - i).append(" more");
                break;
            }
            if (!sb.isEmpty()) {
                sb.append(", ");
            }
            if (j - i >= 2) {
                sb.append(ranks.get(i)).append('-').append(ranks.get(j));
                i = j + 1;
            } else {
                sb.append(ranks.get(i));
                i++;
            }
            entries++;
        }
        return sb.toString();
    }

    private void sendAddresses() {
        for (int r = 0; r < nranks; r++) {
            reply(byRank[r], Wire.Reply.ok(byRank[(r + 1) % nranks].info().listen()));
        }
    }

    /** Connects to a rank's root listener and sends one reply; failures are logged, not thrown. */
    private void reply(Arrived to, Wire.Reply reply) {
        InetSocketAddress addr = to.info().listenRoot();
        String what = "bootstrap " + name + " replying to rank " + to.rank() + " at " + SockAddr.text(addr);
        long left = Math.max(0, (to.rankDeadlineNanos() - System.nanoTime()) / 1_000_000);
        Deadline d = Deadline.afterMillis(Math.max(1000, Math.min(left, 10_000)));
        try (var ch = Io.connect(addr, d, stopper, 200, what)) {
            Io.write(ch, Io.authenticate(ch, auth, Wire.headerAndFrame(nonce, Wire.KIND_ROOT_REPLY, -1, 0, reply.encode()),
                    d, stopper, what), d, stopper, what);
        } catch (NcclException e) {
            if (stopper.isStopped()) {
                throw e;
            }
            Log.info(Subsys.INIT | Subsys.NET, "%s failed: %s", what, e.detail());
        } catch (IOException e) {
            Log.info(Subsys.INIT | Subsys.NET, "%s: close failed: %s", what, e.getMessage());
        }
    }
}
