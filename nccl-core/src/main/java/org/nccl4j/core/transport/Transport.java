package org.nccl4j.core.transport;

/**
 * A way to connect two ranks ({@code ncclTransport}): in-process, SHM, NET. The first whose
 * {@link #canConnect} accepts a peer carries that connection ({@code selectTransport}).
 *
 * <p>Setup runs in two halves as in NCCL: {@code setup*} creates this side's resources and
 * returns the connect info shipped to the peer over bootstrap; {@code connect*} completes the
 * connection with the peer's info.
 */
public interface Transport {
    /** @return the name used in logs, e.g. {@code SHM} */
    String name();

    /**
     * @param ctx  the communicator's transport context
     * @param peer a rank
     * @return whether this transport can connect this rank with {@code peer}
     */
    boolean canConnect(TransportContext ctx, int peer);

    /**
     * @param ctx     context
     * @param channel channel id
     * @param peer    the receiving rank
     * @return this side's resources and the info for the peer
     */
    Setup setupSend(TransportContext ctx, int channel, int peer);

    /**
     * @param ctx     context
     * @param channel channel id
     * @param peer    the sending rank
     * @return this side's resources and the info for the peer
     */
    Setup setupRecv(TransportContext ctx, int channel, int peer);

    /**
     * @param ctx      context
     * @param mine     what {@link #setupSend} returned
     * @param peerInfo the receiver's info
     * @return the kernel's send connection
     */
    Conn connectSend(TransportContext ctx, Setup mine, byte[] peerInfo);

    /**
     * @param ctx      context
     * @param mine     what {@link #setupRecv} returned
     * @param peerInfo the sender's info
     * @return the kernel's receive connection
     */
    Conn connectRecv(TransportContext ctx, Setup mine, byte[] peerInfo);

    /**
     * Releases a setup that will never be connected (the connection setup failed first): what
     * {@code setup*} opened and only {@code connect*} would have closed.
     *
     * @param ctx  context
     * @param mine what {@link #setupSend} or {@link #setupRecv} returned
     */
    default void abandon(TransportContext ctx, Setup mine) {
    }

    /**
     * One side's setup result.
     *
     * @param channel channel id
     * @param peer    the other rank
     * @param info    connect info for the peer (at most {@link TransportSetup#CONNECT_SIZE} bytes)
     * @param state   the transport's own state, handed back to {@code connect*}
     */
    record Setup(int channel, int peer, byte[] info, Object state) {
    }
}
