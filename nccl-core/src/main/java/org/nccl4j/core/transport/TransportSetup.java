package org.nccl4j.core.transport;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.bootstrap.Bootstrap;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.wait.Deadline;

/**
 * {@code ncclTransportP2pSetup}: for each distance {@code i = 1..n-1} the rank sets up its
 * receives from {@code rank-i} and its sends to {@code rank+i}, ships the connect infos over
 * bootstrap, and connects with the peers' infos. Both sides pick the transport the same way (the
 * first that can connect), so they agree without talking.
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
        int n = ctx.nranks();
        int rank = ctx.rank();
        Map<Link, Conn> sendConns = new HashMap<>();
        Map<Link, Conn> recvConns = new HashMap<>();
        for (int i = 1; i < n; i++) {
            int recvPeer = (rank - i + n) % n;
            int sendPeer = (rank + i) % n;
            int tag = (i << 8) + tagBase;
            List<Transport.Setup> recvSetups = new ArrayList<>();
            List<Transport.Setup> sendSetups = new ArrayList<>();
            for (Link l : recvs) {
                if (l.peer() == recvPeer) {
                    recvSetups.add(select(recvPeer).setupRecv(ctx, l.channel(), recvPeer));
                }
            }
            for (Link l : sends) {
                if (l.peer() == sendPeer) {
                    sendSetups.add(select(sendPeer).setupSend(ctx, l.channel(), sendPeer));
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
            if (!sendSetups.isEmpty()) {
                List<byte[]> infos = decode(bootstrap.recv(sendPeer, tag | 1, deadline), sendSetups.size(), sendPeer);
                Transport t = select(sendPeer);
                for (int k = 0; k < sendSetups.size(); k++) {
                    Transport.Setup s = sendSetups.get(k);
                    Conn c = t.connectSend(ctx, s, infos.get(k));
                    Log.info(Subsys.INIT | Subsys.P2P, "%s", c.description());
                    sendConns.put(new Link(s.channel(), sendPeer), c);
                }
            }
            if (!recvSetups.isEmpty()) {
                List<byte[]> infos = decode(bootstrap.recv(recvPeer, tag | 2, deadline), recvSetups.size(), recvPeer);
                Transport t = select(recvPeer);
                for (int k = 0; k < recvSetups.size(); k++) {
                    Transport.Setup s = recvSetups.get(k);
                    recvConns.put(new Link(s.channel(), recvPeer), t.connectRecv(ctx, s, infos.get(k)));
                }
            }
        }
        return new Connected(sendConns, recvConns);
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
