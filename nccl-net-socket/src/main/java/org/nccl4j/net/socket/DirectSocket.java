package org.nccl4j.net.socket;

import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.unix.FileDescriptor;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.function.Consumer;
import org.nccl4j.net.spi.NetException;

/**
 * A comm's control connection moved by the threads that call {@code isend}, {@code irecv} and
 * {@code test}, as NCCL's {@code ncclSocketTest} makes socket progress on the caller's thread,
 * instead of by a Netty event loop: a message then costs the proxy's own system calls and no
 * thread wake-up at either end (two wakes of a sleeping event loop per message were most of a
 * small message's time). Used on the epoll transport, with or without data connections: the
 * channel is set up by Netty, then taken off its event loop and driven here through its file
 * descriptor, non-blocking.
 *
 * <p>The wire format is the one {@link SocketSendComm} documents: a little-endian 8-byte size,
 * then the payload, unless the message is striped over the comm's data connections (which stay
 * on the event loops). Messages complete in the order they were posted. All methods are
 * thread-safe (one lock; in practice only the proxy thread calls them).
 */
final class DirectSocket {
    /** Largest single read or write. */
    private static final int MAX_IO = 1 << 30;
    /** Bounce buffer for heap segments, which have no native address. */
    private static final int SCRATCH = 64 * 1024;
    private static final ValueLayout.OfLong SIZE_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong ADDRESS = ValueLayout.JAVA_LONG_UNALIGNED;

    private final FileDescriptor fd;
    private final String peer;
    private final ArrayDeque<SocketRequest> sends = new ArrayDeque<>(SocketComm.MAX_REQUESTS);
    private final ArrayDeque<SocketRequest> receives = new ArrayDeque<>(SocketComm.MAX_REQUESTS);
    /** Size headers (8 bytes out, 8 in) and a two-entry iovec for header plus payload: native memory. */
    private final MemorySegment scratch = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(48));
    private final MemorySegment sendHeader = scratch.asSlice(0, SocketComm.HEADER_SIZE);
    private final MemorySegment recvHeader = scratch.asSlice(8, SocketComm.HEADER_SIZE);
    private final MemorySegment iov = scratch.asSlice(16, 32);
    /** Bytes of the head send done, header included. */
    private long sendDone;
    /**
     * Bytes of the head receive done, header included, and once the header is in the payload bytes
     * that follow it on this connection (none for a striped message).
     */
    private long recvDone;
    private long recvSize;
    /** Bytes Netty had read ahead before the hand-over; they come before the socket's. */
    private final byte[] readAhead;
    private int readAheadPos;
    private ByteBuffer bounce;
    private boolean closed;

    /**
     * @param fd        the connected socket, no longer registered with an event loop
     * @param peer      the peer's address, for messages
     * @param readAhead bytes already read from the socket, delivered first (may be empty)
     */
    DirectSocket(FileDescriptor fd, String peer, byte[] readAhead) {
        this.fd = fd;
        this.peer = peer;
        this.readAhead = readAhead;
    }

    /** Queues a message to send (its request holds the buffer, its guard part stands for the message). */
    synchronized void send(SocketRequest r) {
        if (!closed) {
            sends.addLast(r);
        }
    }

    /** Queues a receive (its request holds the buffer, its guard part stands for the message). */
    synchronized void receive(SocketRequest r) {
        if (!closed) {
            receives.addLast(r);
        }
    }

    /**
     * Moves as many bytes as the socket takes or has, without blocking; completes the requests
     * whose message is through.
     *
     * @throws IOException if the socket failed or the peer closed it
     * @throws NetException if a message is larger than its receive buffer
     */
    synchronized void progress() throws IOException, NetException {
        if (closed) {
            return;
        }
        progressSends();
        progressReceives();
    }

    private void progressSends() throws IOException {
        for (SocketRequest r; (r = sends.peekFirst()) != null; ) {
            MemorySegment data = r.data();
            long size = data.byteSize();
            // A striped message's payload goes on the data connections: only its header here.
            long payload = r.comm.striped(size) ? 0 : size;
            long total = SocketComm.HEADER_SIZE + payload;
            long n;
            if (sendDone == 0) {
                sendHeader.set(SIZE_LE, 0, size);
                n = payload > 0 && data.isNative() ? writeHeaderAndPayload(data)
                        : write(sendHeader, 0, SocketComm.HEADER_SIZE);
            } else if (sendDone < SocketComm.HEADER_SIZE) {
                n = write(sendHeader, sendDone, (int) (SocketComm.HEADER_SIZE - sendDone));
            } else {
                long off = sendDone - SocketComm.HEADER_SIZE;
                n = write(data, off, (int) Math.min(MAX_IO, size - off));
            }
            if (n == 0) {
                return; // the socket's buffer is full
            }
            sendDone += n;
            if (sendDone == total) {
                sends.pollFirst();
                sendDone = 0;
                r.partDone();
            }
        }
    }

    /** One {@code writev} of the size header and the payload: a small message in one system call. */
    private long writeHeaderAndPayload(MemorySegment data) throws IOException {
        iov.set(ADDRESS, 0, sendHeader.address());
        iov.set(ADDRESS, 8, SocketComm.HEADER_SIZE);
        iov.set(ADDRESS, 16, data.address());
        iov.set(ADDRESS, 24, Math.min(MAX_IO, data.byteSize()));
        return fd.writevAddresses(iov.address(), 2);
    }

    private void progressReceives() throws IOException, NetException {
        for (SocketRequest r; (r = receives.peekFirst()) != null; ) {
            int n;
            if (recvDone < SocketComm.HEADER_SIZE) {
                n = read(recvHeader, recvDone, (int) (SocketComm.HEADER_SIZE - recvDone));
            } else {
                long off = recvDone - SocketComm.HEADER_SIZE;
                n = read(r.data(), off, (int) Math.min(MAX_IO, recvSize - off));
            }
            if (n == 0) {
                return; // nothing more has arrived
            }
            recvDone += n;
            if (recvDone == SocketComm.HEADER_SIZE) {
                recvSize = recvHeader.get(SIZE_LE, 0);
                if (recvSize < 0 || recvSize > r.data().byteSize()) {
                    throw new NetException(NetException.Kind.INTERNAL, "NET/Socket : message truncated : receiving "
                            + recvSize + " bytes instead of " + r.data().byteSize() + " from peer " + peer);
                }
                r.size(recvSize);
                if (((SocketRecvComm) r.comm).striped(recvSize)) {
                    // Its payload comes on the data connections; none follows here.
                    ((SocketRecvComm) r.comm).expectPieces(r, recvSize);
                    recvSize = 0;
                }
            }
            if (recvDone >= SocketComm.HEADER_SIZE && recvDone == SocketComm.HEADER_SIZE + recvSize) {
                receives.pollFirst();
                recvDone = 0;
                r.partDone();
            }
        }
    }

    /** @return bytes written, 0 if the socket takes none now */
    private int write(MemorySegment from, long off, int len) throws IOException {
        if (from.isNative()) {
            return fd.writeAddress(from.address() + off, 0, len);
        }
        ByteBuffer b = bounce();
        int n = Math.min(len, SCRATCH);
        MemorySegment.copy(from, off, MemorySegment.ofBuffer(b), 0, n);
        return fd.write(b, 0, n);
    }

    /** @return bytes read, 0 if none are there; end of stream is an error (messages are never cut short) */
    private int read(MemorySegment into, long off, int len) throws IOException, NetException {
        if (readAheadPos < readAhead.length) {
            int n = Math.min(len, readAhead.length - readAheadPos);
            MemorySegment.copy(readAhead, readAheadPos, into, ValueLayout.JAVA_BYTE, off, n);
            readAheadPos += n;
            return n;
        }
        int n;
        if (into.isNative()) {
            n = fd.readAddress(into.address() + off, 0, len);
        } else {
            ByteBuffer b = bounce();
            n = fd.read(b, 0, Math.min(len, SCRATCH));
            if (n > 0) {
                MemorySegment.copy(MemorySegment.ofBuffer(b), 0, into, off, n);
            }
        }
        if (n < 0) {
            throw new NetException(NetException.Kind.REMOTE, "NET/Socket : connection closed by remote peer " + peer);
        }
        return n;
    }

    private ByteBuffer bounce() {
        if (bounce == null) {
            bounce = ByteBuffer.allocateDirect(SCRATCH);
        }
        return bounce;
    }

    /**
     * Stops all progress; queued requests are failed by the comm, and the socket is closed by its
     * Netty channel (which owns the descriptor, so it is closed once and never after its number
     * was reused). Idempotent.
     */
    synchronized void close() {
        closed = true;
        sends.clear();
        receives.clear();
    }

    /**
     * Takes a connected channel off its event loop; {@code then} runs on that loop once no
     * event loop reads or writes the socket any more.
     *
     * @param ch   an epoll socket channel with nothing left to write
     * @param then what follows the hand-over, given whether it succeeded
     */
    static void handOver(Channel ch, Consumer<Throwable> then) {
        ch.deregister().addListener(f -> then.accept(f.cause()));
    }

    /** @return the descriptor of an epoll socket channel (Netty's epoll channels expose theirs) */
    static FileDescriptor descriptor(Channel ch) {
        return ((EpollSocketChannel) ch).fd();
    }
}
