package org.nccl4j.net.socket;

import io.netty.channel.Channel;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.RecvComm;

/**
 * The receiving end of a Socket connection. A posted receive first waits for its message's
 * size header on the control connection; the header then places the payload: on the control
 * connection right after the header, or, for a {@link SocketComm#striped striped} message, as
 * pieces on the data connections in the same round-robin order the sender used. Payload lands in
 * the caller's buffer.
 */
final class SocketRecvComm extends SocketComm implements RecvComm {
    private final InboundStream controlStream;
    private final InboundStream[] dataStreams;

    SocketRecvComm(Channel control, InboundStream controlStream, Channel[] data, InboundStream[] dataStreams,
                   DirectSocket direct, String peer) {
        super(control, data, direct, peer);
        this.controlStream = controlStream;
        this.dataStreams = dataStreams;
    }

    /**
     * Posts a receive; never blocks.
     *
     * @param segment the buffer; its size is the capacity
     * @return its request
     * @throws NetException if the comm is closed or failed, or all request slots are busy
     */
    SocketRequest receive(MemorySegment segment) throws NetException {
        SocketRequest r = acquire(segment);
        if (direct != null) {
            direct.receive(r);
            progressDirect();
            return r;
        }
        controlStream.expect(new Sink(r.header, new Sink.Listener() {
            @Override
            public void filled(Sink sink) {
                onHeader(r);
            }

            @Override
            public void failed(NetException e) {
                fail(e);
            }
        }));
        return r;
    }

    /** On the control connection's event loop: the size is known, so the payload can be placed. */
    private void onHeader(SocketRequest r) {
        long size = r.header.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), 0);
        MemorySegment buffer = r.data();
        if (size < 0 || size > buffer.byteSize()) {
            fail(new NetException(NetException.Kind.INTERNAL, "NET/Socket : message truncated : receiving " + size
                    + " bytes instead of " + buffer.byteSize() + " from peer " + peer));
            return;
        }
        r.size(size);
        if (striped(size)) {
            expectPieces(r, size);
        } else if (size > 0) {
            r.addParts(1);
            controlStream.expectFirst(new Sink(buffer.asSlice(0, size), r.partListener));
        }
        // The guard part taken at claim time stands for the header.
        r.partDone();
    }

    /**
     * Places a striped message's payload: its pieces on the data connections, in the sender's
     * order, each a part of the request. Before the header's part is done (it may be the last).
     *
     * @param r    the receive
     * @param size the message size, from its header
     */
    void expectPieces(SocketRequest r, long size) {
        MemorySegment buffer = r.data();
        long taskSize = taskSize(size, nSocks());
        for (long off = 0; off < size; off += taskSize) {
            MemorySegment piece = buffer.asSlice(off, Math.min(taskSize, size - off));
            r.addParts(1);
            dataStreams[nextDataSocket()].expect(new Sink(piece, r.partListener));
        }
    }
}
