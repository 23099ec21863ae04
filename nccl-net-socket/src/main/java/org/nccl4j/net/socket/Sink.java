package org.nccl4j.net.socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.foreign.MemorySegment;
import org.nccl4j.net.spi.NetException;

/**
 * A region that the next bytes arriving on one connection belong in: a message header, a
 * handshake, or (part of) a posted receive buffer. Confined to the connection's event loop.
 */
final class Sink {
    /** What is told when a sink fills up or can never fill. */
    interface Listener {
        /**
         * Called on the event loop once every byte has arrived.
         *
         * @param sink the full sink
         */
        void filled(Sink sink);

        /**
         * Called on the event loop when the connection failed before the sink filled.
         *
         * @param error why
         */
        void failed(NetException error);
    }

    private final MemorySegment target;
    private final Listener listener;
    private long filled;

    /**
     * @param target   where the bytes go; must not be empty
     * @param listener told when it is full or failed
     */
    Sink(MemorySegment target, Listener listener) {
        assert target.byteSize() > 0 : "an empty sink would never be filled";
        this.target = target;
        this.listener = listener;
    }

    MemorySegment target() {
        return target;
    }

    long remaining() {
        return target.byteSize() - filled;
    }

    /** Copies up to {@code remaining()} readable bytes of {@code src} in; returns whether the sink is now full. */
    boolean copyFrom(ByteBuf src) {
        int n = (int) Math.min(src.readableBytes(), remaining());
        // One view per component (read-ahead is a composite buffer), no merging copy; segment copy
        // works for every target kind (native, byte[], long[], ...), unlike ByteBuffer views.
        for (java.nio.ByteBuffer part : src.nioBuffers(src.readerIndex(), n)) {
            int len = part.remaining();
            MemorySegment.copy(MemorySegment.ofBuffer(part), 0, target, filled, len);
            filled += len;
        }
        src.skipBytes(n);
        return remaining() == 0;
    }

    /** Whether the socket can read straight into the target (native memory only: the native transport needs an address). */
    boolean lendable() {
        return target.isNative();
    }

    /**
     * Wraps the unfilled part (at most {@code max} bytes) as an empty buffer for the socket to read into.
     * The wrapper does not own the memory; releasing it frees nothing.
     */
    ByteBuf lend(int max) {
        int n = (int) Math.min(remaining(), max);
        return Unpooled.wrappedBuffer(target.asSlice(filled, n).asByteBuffer()).clear();
    }

    /** Accounts for {@code n} bytes the socket read straight into the target; returns whether the sink is now full. */
    boolean advance(int n) {
        filled += n;
        return remaining() == 0;
    }

    void complete() {
        listener.filled(this);
    }

    void fail(NetException error) {
        listener.failed(error);
    }
}
