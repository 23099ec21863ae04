package org.nccl4j.net.socket;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The first bytes on every connection of a Socket comm. NCCL sends only the socket's index;
 * the magic lets the listener drop strangers, and the connector id keeps two connectors that
 * use one handle from mixing their sockets.
 *
 * <p>Layout, little-endian: {@code u64 magic}, {@code u64 connectorId}, {@code i32 index}
 * (data sockets 0 to nSocks-1, the control socket nSocks), {@code i32 nSocks}. With
 * {@code NCCL4J_AUTH_KEY} the listener first sends a 16-byte challenge and the handshake is
 * followed by the 32-byte answer ({@link org.nccl4j.net.spi.auth.ConnectionAuth}).
 *
 * @param connectorId random id shared by all sockets of one {@code connect}
 * @param index       this socket's index
 * @param nSocks      the connector's data socket count
 */
record Handshake(long connectorId, int index, int nSocks) {
    /** Bytes on the wire. */
    static final int SIZE = 24;
    /** What a Socket connection's authentication answer is bound to ({@link org.nccl4j.net.spi.auth.ConnectionAuth}). */
    static final String AUTH_PURPOSE = "nccl4j net socket v1";

    /** @return the encoded handshake */
    byte[] bytes() {
        return ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN).putLong(SocketHandle.MAGIC).putLong(connectorId)
                .putInt(index).putInt(nSocks).array();
    }

    /**
     * @param bytes {@value #SIZE} received bytes
     * @return the handshake, or {@code null} if the magic is wrong
     */
    static Handshake decode(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getLong(0) != SocketHandle.MAGIC) {
            return null;
        }
        return new Handshake(b.getLong(8), b.getInt(16), b.getInt(20));
    }
}
