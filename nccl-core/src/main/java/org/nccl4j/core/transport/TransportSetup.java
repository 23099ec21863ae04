package org.nccl4j.core.transport;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.bootstrap.Bootstrap;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.Deadline;

/**
 * {@code ncclTransportP2pSetup}: for each distance {@code i = 1..n-1} the rank sets up its
 * receives from {@code rank-i} and its sends to {@code rank+i}, ships the connect infos over
 * bootstrap, and connects with the peers' infos, its sends and its receives at the same time. Both
 * sides pick the transport the same way (the first that can connect), so they agree without talking.
 */
public final class TransportSetup {
    /** Largest connect info ({@code CONNECT_SIZE} is 128 in NCCL; a v5 net handle alone is 128). */
    public static final int CONNECT_SIZE = 256;

    private final TransportContext ctx;
    private final List<Transport> transports;

    /**
     * @param ctx        the communicator's context
     * @param transports candidates in NCCL's order (in-process, SHM, NET)
     */
    public TransportSetup(TransportContext ctx, List<Transport> transports) {
        this.ctx = ctx;
        this.transports = List.copyOf(transports);
    }

    /**
     * @param peer a rank
     * @return the transport that connects this rank with it
     * @throws NcclException with {@link Result#SYSTEM_ERROR} if none can
     */
    public Transport select(int peer) {
        for (Transport t : transports) {
            if (t.canConnect(ctx, peer)) {
                return t;
            }
        }
        throw NcclException.of(Result.SYSTEM_ERROR, "no transport can connect rank " + ctx.rank() + " to rank " + peer,
                "enable SHM (NCCL_SHM_DISABLE=0) or make a network usable (nccl4j doctor)");
    }

    /**
     * A connection to make.
     *
     * @param channel channel id
     * @param peer    the other rank
     */
    public record Link(int channel, int peer) {
    }

    /**
     * Connects every requested link.
     *
     * @param bootstrap for the exchange
     * @param recvs     receives to set up
     * @param sends     sends to set up
     * @param tagBase   distinguishes this setup's bootstrap messages (NCCL: graph id)
     * @param deadline  for the exchange
     * @return send connections and receive connections by link
     */
    public Connected connect(Bootstrap bootstrap, List<Link> recvs, List<Link> sends, int tagBase, Deadline deadline) {
        Map<Link, Conn> sendConns = new HashMap<>();
        Map<Link, Conn> recvConns = new HashMap<>();
        Map<Transport.Setup, Transport> unconnected = new ConcurrentHashMap<>();
        try {
            connectSteps(bootstrap, recvs, sends, tagBase, deadline, sendConns, recvConns, unconnected);
        } catch (RuntimeException | Error e) {
            // The earlier steps' connections, and the setups never connected (a net's listener),
            // hold net comms and memory nobody else will free.
            sendConns.values().forEach(Conn::close);
            recvConns.values().forEach(Conn::close);
            unconnected.forEach((s, t) -> t.abandon(ctx, s));
            throw e;
        }
        return new Connected(sendConns, recvConns);
    }

    /** {@link #connect}'s steps, each peer distance in turn; what is connected lands in the maps as it is. */
    private void connectSteps(Bootstrap bootstrap, List<Link> recvs, List<Link> sends, int tagBase, Deadline deadline,
                              Map<Link, Conn> sendConns, Map<Link, Conn> recvConns,
                              Map<Transport.Setup, Transport> unconnected) {
        int n = ctx.nranks();
        int rank = ctx.rank();
        for (int i = 1; i < n; i++) {
            // Before this step's setups: they allocate (SHM segments, net listeners) for nothing after an abort.
            if (ctx.abort() != null) {
                ctx.abort().check("connection setup of rank " + rank);
            }
            int recvPeer = (rank - i + n) % n;
            int sendPeer = (rank + i) % n;
            int tag = (i << 8) + tagBase;
            List<Transport.Setup> recvSetups = new ArrayList<>();
            List<Transport.Setup> sendSetups = new ArrayList<>();
            for (Link l : recvs) {
                if (l.peer() == recvPeer) {
                    Transport t = select(recvPeer);
                    Transport.Setup s = t.setupRecv(ctx, l.channel(), recvPeer);
                    recvSetups.add(s);
                    unconnected.put(s, t);
                }
            }
            for (Link l : sends) {
                if (l.peer() == sendPeer) {
                    Transport t = select(sendPeer);
                    Transport.Setup s = t.setupSend(ctx, l.channel(), sendPeer);
                    sendSetups.add(s);
                    unconnected.put(s, t);
                }
            }
            // Receive infos go to the sender (tag|1), send infos to the receiver (tag|2): distinct
            // tags keep them apart when both peers are the same rank.
            if (!recvSetups.isEmpty()) {
                bootstrap.send(recvPeer, tag | 1, encode(recvSetups), deadline);
            }
            if (!sendSetups.isEmpty()) {
                bootstrap.send(sendPeer, tag | 2, encode(sendSetups), deadline);
            }
            Side sendSide = sendSetups.isEmpty() ? null : new Side(select(sendPeer), sendSetups,
                    decode(bootstrap.recv(sendPeer, tag | 1, deadline), sendSetups.size(), sendPeer), sendPeer, true,
                    unconnected);
            Side recvSide = recvSetups.isEmpty() ? null : new Side(select(recvPeer), recvSetups,
                    decode(bootstrap.recv(recvPeer, tag | 2, deadline), recvSetups.size(), recvPeer), recvPeer, false,
                    unconnected);
            if (sendSide != null && recvSide != null) {
                connectTogether(sendSide, recvSide, sendConns, recvConns, deadline);
            } else if (sendSide != null) {
                sendSide.connect(ctx, sendConns);
            } else if (recvSide != null) {
                recvSide.connect(ctx, recvConns);
            }
        }
    }

    /**
     * One step's connections in one direction.
     *
     * @param transport what carries them (both ends chose it alike)
     * @param setups    this side's setups
     * @param infos     the peer's connect infos, one per setup
     * @param peer      the peer
     * @param send      sends (connect) or receives (accept)
     */
    private record Side(Transport transport, List<Transport.Setup> setups, List<byte[]> infos, int peer, boolean send,
                        Map<Transport.Setup, Transport> unconnected) {
        void connect(TransportContext c, Map<Link, Conn> out) {
            for (int k = 0; k < setups.size(); k++) {
                Transport.Setup s = setups.get(k);
                unconnected.remove(s); // connect* releases it, whether it connects or fails
                Conn conn = send ? transport.connectSend(c, s, infos.get(k)) : transport.connectRecv(c, s, infos.get(k));
                if (send) {
                    Log.info(Subsys.INIT | Subsys.P2P, "%s", conn.description());
                }
                out.put(new Link(s.channel(), peer), conn);
            }
        }

        /** {@link #connect}; a failure becomes {@code first} (or is attached to it) and stops the other side. */
        void connectOrStop(TransportContext c, Map<Link, Conn> out, AtomicReference<Throwable> first, AbortFlag stop) {
            try {
                connect(c, out);
            } catch (RuntimeException | Error e) {
                if (!first.compareAndSet(null, e)) {
                    first.get().addSuppressed(e);
                }
                stop.set("stopped: " + (send ? "a connect to rank " : "an accept from rank ") + peer + " failed",
                        e instanceof NcclException n ? n.result() : Result.INTERNAL_ERROR);
            }
        }
    }

    /**
     * Connects a step's sends and accepts its receives at the same time, as NCCL's
     * {@code ncclTransportP2pSetup} polls both with v5+ plugins: some plugins' connect completes
     * only once the peer has called accept (libfabric-based ones), and the peer is connecting to
     * us first. The accepts run on a thread of their own. Both sides wait under a setup-local
     * abort flag (the communicator's abort sets it too), so the first failure stops the other
     * side at once instead of after its connect timeout; that first failure is thrown, the other
     * side's attached to it.
     */
    private void connectTogether(Side sends, Side recvs, Map<Link, Conn> sendConns, Map<Link, Conn> recvConns,
                                 Deadline deadline) {
        AbortFlag local = new AbortFlag();
        Runnable forward = () -> local.set(ctx.abort().reason(), ctx.abort().kind());
        ctx.abort().onAbort(forward);
        TransportContext c = new TransportContext(ctx.rank(), ctx.peers(), ctx.commId(), ctx.config(), ctx.buffs(),
                ctx.arena(), ctx.memory(), ctx.gdr(), ctx.net(), ctx.proxy(), local);
        AtomicReference<Throwable> first = new AtomicReference<>();
        Map<Link, Conn> accepted = new HashMap<>();
        Thread acceptor = Thread.ofPlatform().daemon().name("nccl4j-accept-r" + ctx.rank() + "-from-r" + recvs.peer())
                .start(() -> recvs.connectOrStop(c, accepted, first, local));
        sends.connectOrStop(c, sendConns, first, local);
        try {
            if (!join(acceptor, deadline)) {
                local.set("stopped: the init deadline passed", Result.TIMEOUT);
                join(acceptor, Deadline.afterMillis(ctx.config().integer(Params.CONNECT_TIMEOUT_MS)));
            }
        } finally {
            ctx.abort().remove(forward);
        }
        if (!acceptor.isAlive()) {
            // Ended: its connections are the caller's, to use or, on a failure below, to close.
            recvConns.putAll(accepted);
        }
        ctx.abort().check("connection setup with ranks " + sends.peer() + " and " + recvs.peer()); // with its reason
        if (acceptor.isAlive()) {
            throw NcclException.of(Result.TIMEOUT, "rank " + ctx.rank() + ": accepting from rank " + recvs.peer()
                    + " did not return after the init deadline and an abort", "a net plugin's accept is blocking; "
                    + "check the plugin (nccl4j doctor) and that rank " + recvs.peer() + " is running");
        }
        Throwable failure = first.get(); // what connectOrStop caught: unchecked only
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
    }

    /** @return whether {@code t} ended before {@code deadline}; an interrupt is kept for the caller */
    private static boolean join(Thread t, Deadline deadline) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return t.join(Duration.ofNanos(Math.max(1, deadline.remainingNanos())));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The outcome of {@link #connect}.
     *
     * @param sends send connections by link
     * @param recvs receive connections by link
     */
    public record Connected(Map<Link, Conn> sends, Map<Link, Conn> recvs) {
    }

    private static byte[] encode(List<Transport.Setup> setups) {
        int size = 4;
        for (Transport.Setup s : setups) {
            if (s.info().length > CONNECT_SIZE) {
                throw NcclException.of(Result.INTERNAL_ERROR, "connect info of " + s.info().length + " bytes", null);
            }
            size += 8 + s.info().length;
        }
        ByteBuffer b = ByteBuffer.allocate(size).putInt(setups.size());
        for (Transport.Setup s : setups) {
            b.putInt(s.channel()).putInt(s.info().length).put(s.info());
        }
        return b.array();
    }

    private static List<byte[]> decode(byte[] bytes, int expected, int peer) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int count = b.getInt();
        if (count != expected) {
            throw NcclException.of(Result.INTERNAL_ERROR, "rank " + peer + " sent " + count + " connect infos, expected "
                    + expected, "every rank must run the same collectives and send/recv pairs in the same order");
        }
        List<byte[]> out = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            b.getInt();
            byte[] info = new byte[b.getInt()];
            b.get(info);
            out.add(info);
        }
        return out;
    }
}
