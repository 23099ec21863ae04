package org.nccl4j.core.bootstrap;

import java.io.EOFException;
import java.io.IOException;
import java.net.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;

/**
 * Reads one frame ({@code i32 length | bytes}) from a non-blocking channel, a piece at a time,
 * never reading past the frame. Refuses lengths above a limit, or (for all-gather slices) any
 * length but the expected one; on the ring it also understands an error notice
 * ({@link Wire#ERROR_NOTICE}) sent by a peer that failed.
 */
final class FrameReader {
    /**
     * A data frame's buffer starts this large and doubles as its bytes arrive: a length field
     * alone (a stranger's, or a fuzzed one, up to {@link Wire#MAX_FRAME}) allocates no more.
     */
    static final int FIRST_CHUNK = 64 * 1024;

    private final ByteBuffer len = ByteBuffer.allocate(4);
    private final int max;
    private final int exact;
    private final boolean notices;
    private final byte[] target;
    private final int targetOff;
    private ByteBuffer body;
    private int want;
    private boolean noticeLen;
    private String notice;

    private FrameReader(int max, int exact, boolean notices, byte[] target, int targetOff) {
        this.max = max;
        this.exact = exact;
        this.notices = notices;
        this.target = target;
        this.targetOff = targetOff;
    }

    /** A frame of any length up to {@code max}. */
    static FrameReader upTo(int max) {
        return new FrameReader(max, -1, false, null, 0);
    }

    /** A ring frame of exactly {@code len} bytes, read into {@code target} at {@code off}; error notices allowed. */
    static FrameReader ring(byte[] target, int off, int len) {
        return new FrameReader(len, len, true, target, off);
    }

    /**
     * Reads what is available.
     *
     * @param ch a non-blocking channel
     * @return whether the frame (or an error notice) is complete
     * @throws EOFException      if the peer closed the connection first
     * @throws ProtocolException if the length is refused
     * @throws IOException       if reading fails
     */
    boolean readFrom(ReadableByteChannel ch) throws IOException {
        while (true) {
            if (body == null) {
                if (fill(ch, len)) {
                    return false;
                }
                int n = len.getInt(0);
                if (noticeLen) {
                    if (n < 0 || n > Wire.MAX_ROOT_FRAME) {
                        throw new ProtocolException("error notice of " + n + " bytes refused");
                    }
                    body = ByteBuffer.allocate(n);
                    want = n;
                } else if (n == Wire.ERROR_NOTICE && notices) {
                    noticeLen = true;
                    len.clear();
                    continue;
                } else if (exact >= 0 && n != exact) {
                    throw new ProtocolException("Message truncated : received " + n + " bytes instead of " + exact);
                } else if (n < 0 || n > max) {
                    throw new ProtocolException("frame of " + n + " bytes refused (limit " + max + ")");
                } else {
                    body = target != null ? ByteBuffer.wrap(target, targetOff, n).slice()
                            : ByteBuffer.allocate(Math.min(n, FIRST_CHUNK));
                    want = n;
                }
            }
            while (true) {
                if (fill(ch, body)) {
                    return false;
                }
                if (body.capacity() >= want) {
                    break;
                }
                ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(want, 2L * body.capacity()));
                body = bigger.put(body.flip());
            }
            if (noticeLen) {
                notice = new String(body.array(), 0, body.capacity(), StandardCharsets.UTF_8);
            }
            return true;
        }
    }

    /** @return true if the buffer is still not full (would block) */
    private static boolean fill(ReadableByteChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            int r = ch.read(b);
            if (r < 0) {
                throw new EOFException("connection closed by remote peer");
            }
            if (r == 0) {
                return true;
            }
        }
        return false;
    }

    /** @return whether nothing of the frame has arrived yet */
    boolean nothingYet() {
        return len.position() == 0 && body == null && !noticeLen;
    }

    /** @return the payload of a complete data frame (a copy-free view for ring frames is in the target) */
    byte[] payload() {
        return body.array();
    }

    /** @return bytes held for the frame's body so far (0 before its length is read) */
    int bodyCapacity() {
        return body == null ? 0 : body.capacity();
    }

    /** @return the peer's error text if it sent an error notice, else {@code null} */
    String notice() {
        return notice;
    }
}
