package org.nccl4j.net.socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The first bytes on every connection of a Socket comm. NCCL sends only the socket's index;
 * the magic lets the listener drop strangers, and the connector id keeps two connectors that
 * use one handle from mixing their sockets.
 *
 * <p>Layout, little-endian: {@code u64 magic}, {@code u64 connectorId}, {@code i32 index}
 * (data sockets 0 to nSocks-1, the control socket nSocks), {@code i32 nSocks}.
 *
 * @param connectorId random id shared by all sockets of one {@code connect}
 * @param index       this socket's index
 * @param nSocks      the connector's data socket count
 */
record Handshake(long connectorId, int index, int nSocks) {
    /** Bytes on the wire. */
    static final int SIZE = 24;

    /**
     * @param alloc where to allocate the buffer
     * @return the encoded handshake
     */
    ByteBuf encode(ByteBufAllocator alloc) {
        return alloc.buffer(SIZE).writeLongLE(SocketHandle.MAGIC).writeLongLE(connectorId).writeIntLE(index)
                .writeIntLE(nSocks);
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
