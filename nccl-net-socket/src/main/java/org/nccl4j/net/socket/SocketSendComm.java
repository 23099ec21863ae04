package org.nccl4j.net.socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.SendComm;

/**
 * The sending end of a Socket connection. A message is its 8-byte little-endian size on the
 * control connection, then its bytes: on the control connection too unless the message is
 * {@link SocketComm#striped striped}, then cut into pieces dealt round-robin over the data
 * connections. The pieces are the caller's memory wrapped, not copied.
 */
final class SocketSendComm extends SocketComm implements SendComm {
    /** Largest single write (a ByteBuf holds at most 2 GiB). */
    static final long MAX_WRITE = 1L << 30;

    SocketSendComm(Channel control, Channel[] data, DirectSocket direct, String peer) {
        super(control, data, direct, peer);
    }

    /**
     * Starts sending a message; never blocks.
     *
     * @param segment the message
     * @return its request
     * @throws NetException if the comm is closed or failed, or all request slots are busy
     */
    SocketRequest send(MemorySegment segment) throws NetException {
        SocketRequest r = acquire(segment);
        long size = segment.byteSize();
        boolean striped = striped(size);
        if (striped) {
            // Before the header: a direct control connection completes the request's guard part.
            long taskSize = taskSize(size, nSocks());
            for (long off = 0; off < size; off += taskSize) {
                MemorySegment piece = segment.asSlice(off, Math.min(taskSize, size - off));
                Channel ch = data[nextDataSocket()];
                r.addParts(pieces(piece.byteSize()));
                ch.eventLoop().execute(() -> writeAll(ch, piece, r, false));
            }
        }
        if (direct != null) {
            direct.send(r);
            progressDirect();
            return r;
        }
        if (striped) {
            r.addParts(1);
            control.writeAndFlush(header(control, size)).addListener(r.writeListener);
        } else {
            r.addParts(pieces(size));
            // One event-loop task per message: header and payload go out in a single flush.
            control.eventLoop().execute(() -> writeAll(control, segment, r, true));
        }
        r.partDone();
        return r;
    }

    /** Writes (header and) payload on the channel's event loop, one counted part per write. */
    private static void writeAll(Channel ch, MemorySegment payload, SocketRequest r, boolean withHeader) {
        long size = payload.byteSize();
        if (withHeader) {
            ByteBuf header = header(ch, size);
            if (size == 0) {
                ch.writeAndFlush(header).addListener(r.writeListener);
                return;
            }
            // The header's completion is implied by the payload's: count it with the first write.
            ch.write(header);
        }
        for (long off = 0; off < size; off += MAX_WRITE) {
            long len = Math.min(MAX_WRITE, size - off);
            ByteBuf piece = wrap(payload.asSlice(off, len));
            if (off + len < size) {
                ch.write(piece).addListener(r.writeListener);
            } else {
                ch.writeAndFlush(piece).addListener(r.writeListener);
            }
        }
    }

    /**
     * The caller's bytes as a buffer Netty can write: a view without copying, except for heap
     * segments over non-byte arrays, which have no ByteBuffer view and are copied.
     */
    static ByteBuf wrap(MemorySegment piece) {
        if (piece.isNative() || piece.heapBase().orElse(null) instanceof byte[]) {
            return Unpooled.wrappedBuffer(piece.asByteBuffer());
        }
        return Unpooled.wrappedBuffer(piece.toArray(ValueLayout.JAVA_BYTE));
    }

    /** @return how many writes a payload of {@code size} bytes takes (at least 1 for the header-only message) */
    static int pieces(long size) {
        return (int) Math.max(1, Math.ceilDiv(size, MAX_WRITE));
    }

    private static ByteBuf header(Channel ch, long size) {
        return ch.alloc().directBuffer(HEADER_SIZE).writeLongLE(size);
    }
}
