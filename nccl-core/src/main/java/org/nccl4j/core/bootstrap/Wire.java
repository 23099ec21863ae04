package org.nccl4j.core.bootstrap;

import java.net.InetSocketAddress;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.nccl4j.Result;
import org.nccl4j.net.spi.auth.ConnectionAuth;

/**
 * The bootstrap wire format (see {@link Bootstrap} for the overview). All integers big-endian.
 *
 * <pre>
 * connection header, 32 bytes, sent once by the connecting side:
 *   i64 magic "NCCL4JBS" | i32 protocol version | i64 communicator nonce | i32 kind | i32 sender rank (-1 = root) | i32 tag
 * frame:
 *   i32 length | length bytes
 * </pre>
 */
final class Wire {
    /** ASCII "NCCL4JBS". */
    static final long MAGIC = 0x4E43434C344A4253L;
    /** Protocol version this code speaks. */
    static final int VERSION = 1;
    /** Size of the connection header. */
    static final int HEADER_BYTES = 32;
    /** What a bootstrap connection's authentication answer is bound to ({@link ConnectionAuth#answer}). */
    static final String AUTH_PURPOSE = "nccl4j bootstrap v1";

    /** Rank to root: one frame holding {@link CheckIn}. */
    static final int KIND_CHECKIN = 1;
    /** Root to a rank's root listener: one frame holding {@link Reply}. */
    static final int KIND_ROOT_REPLY = 2;
    /** Ring connection from the previous rank: a stream of frames. */
    static final int KIND_RING = 3;
    /** Point-to-point message: header tag = message tag, then one frame. */
    static final int KIND_P2P = 4;

    /** Largest frame on a root connection. */
    static final int MAX_ROOT_FRAME = 64 * 1024;
    /** Largest point-to-point payload accepted. */
    static final int MAX_FRAME = 1 << 30;
    /** Frame length announcing an error notice instead of data on the ring: then i32 length + UTF-8 text. */
    static final int ERROR_NOTICE = -1;

    private Wire() {
    }

    static String kindName(int kind) {
        return switch (kind) {
            case KIND_CHECKIN -> "check-in";
            case KIND_ROOT_REPLY -> "root reply";
            case KIND_RING -> "ring";
            case KIND_P2P -> "p2p";
            default -> "unknown kind " + kind;
        };
    }

    /** A received connection header. */
    record Header(int kind, int rank, int tag) {
    }

    static ByteBuffer header(long nonce, int kind, int rank, int tag) {
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES);
        b.putLong(MAGIC).putInt(VERSION).putLong(nonce).putInt(kind).putInt(rank).putInt(tag);
        return b.flip();
    }

    /**
     * @param b a buffer holding at least 8 bytes from the start of a header
     * @return whether the magic is wrong
     */
    static boolean badMagic(ByteBuffer b) {
        return b.position() >= 8 && b.getLong(0) != MAGIC;
    }

    /**
     * @param b a buffer holding at least 8 bytes of a bad header
     * @return a description of what arrived instead, for the log
     */
    static String badMagicText(ByteBuffer b) {
        StringBuilder printable = new StringBuilder();
        for (int i = 0; i < Math.min(b.position(), 16); i++) {
            int c = b.get(i) & 0xff;
            printable.append(c >= 0x20 && c < 0x7f ? (char) c : '.');
        }
        return String.format("bad magic 0x%016x, not an nccl4j bootstrap connection (first bytes \"%s\")",
                b.getLong(0), printable);
    }

    /**
     * @param b     the 32 header bytes (absolute reads)
     * @param nonce the communicator's nonce
     * @return the header
     * @throws IllegalArgumentException naming what is wrong
     */
    static Header parseHeader(ByteBuffer b, long nonce) {
        long magic = b.getLong(0);
        if (magic != MAGIC) {
            throw new IllegalArgumentException(String.format(
                    "bad magic 0x%016x (not an nccl4j bootstrap connection)", magic));
        }
        int version = b.getInt(8);
        if (version != VERSION) {
            throw new IllegalArgumentException("bootstrap protocol version " + version + ", this rank speaks "
                    + VERSION + " (mixed nccl4j versions?)");
        }
        long n = b.getLong(12);
        if (n != nonce) {
            throw new IllegalArgumentException(String.format(
                    "connection from another communicator (nonce 0x%016x, ours 0x%016x)", n, nonce));
        }
        int kind = b.getInt(20);
        int rank = b.getInt(24);
        if (rank < -1) {
            throw new IllegalArgumentException("bad sender rank " + rank);
        }
        return new Header(kind, rank, b.getInt(28));
    }

    /**
     * @param payload bytes to send
     * @return length prefix + payload, ready to write
     */
    static ByteBuffer frame(byte[] payload) {
        return frame(payload, 0, payload.length);
    }

    static ByteBuffer frame(byte[] payload, int off, int len) {
        ByteBuffer b = ByteBuffer.allocate(4 + len);
        b.putInt(len).put(payload, off, len);
        return b.flip();
    }

    /** Header followed by one frame, as one buffer. */
    static ByteBuffer headerAndFrame(long nonce, int kind, int rank, int tag, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + 4 + payload.length);
        b.put(header(nonce, kind, rank, tag)).putInt(payload.length).put(payload);
        return b.flip();
    }

    static ByteBuffer errorNotice(String text) {
        byte[] t = text.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(t.length, MAX_ROOT_FRAME);
        ByteBuffer b = ByteBuffer.allocate(8 + n);
        b.putInt(ERROR_NOTICE).putInt(n).put(t, 0, n);
        return b.flip();
    }

    /**
     * A rank's check-in with the root.
     *
     * @param nranks      the rank count the rank was given
     * @param remainingMs what is left of the rank's init deadline when it checks in
     * @param listenRoot  where the root sends its reply
     * @param listen      the rank's ring/p2p listen address
     */
    record CheckIn(int nranks, long remainingMs, InetSocketAddress listenRoot, InetSocketAddress listen) {
        byte[] encode() {
            ByteBuffer b = ByteBuffer.allocate(12 + 2 * SockAddr.BYTES);
            b.putInt(nranks).putLong(remainingMs);
            SockAddr.encode(listenRoot, b);
            SockAddr.encode(listen, b);
            return b.array();
        }

        static CheckIn decode(byte[] payload) {
            if (payload.length != 12 + 2 * SockAddr.BYTES) {
                throw new IllegalArgumentException("check-in of " + payload.length + " bytes instead of "
                        + (12 + 2 * SockAddr.BYTES));
            }
            ByteBuffer b = ByteBuffer.wrap(payload);
            int nranks = b.getInt();
            long remaining = b.getLong();
            return new CheckIn(nranks, remaining, SockAddr.decode(b), SockAddr.decode(b));
        }
    }

    /**
     * The root's answer to a rank: the next rank's listen address, or an error.
     *
     * @param next   next rank's listen address, or {@code null} on error
     * @param result the error's result code, or {@code null}
     * @param detail the error text
     * @param hint   what to do about it
     */
    record Reply(InetSocketAddress next, Result result, String detail, String hint) {
        static Reply ok(InetSocketAddress next) {
            return new Reply(next, null, null, null);
        }

        static Reply error(Result result, String detail, String hint) {
            return new Reply(null, result, detail, hint);
        }

        byte[] encode() {
            if (next != null) {
                ByteBuffer b = ByteBuffer.allocate(1 + SockAddr.BYTES);
                b.put((byte) 0);
                SockAddr.encode(next, b);
                return b.array();
            }
            byte[] d = clip(detail);
            byte[] h = clip(hint == null ? "" : hint);
            ByteBuffer b = ByteBuffer.allocate(1 + 4 + 4 + d.length + 4 + h.length);
            b.put((byte) 1).putInt(result.code()).putInt(d.length).put(d).putInt(h.length).put(h);
            return b.array();
        }

        private static byte[] clip(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            if (b.length <= 16 * 1024) {
                return b;
            }
            byte[] c = new byte[16 * 1024];
            System.arraycopy(b, 0, c, 0, c.length);
            return c;
        }

        static Reply decode(byte[] payload) {
            try {
                ByteBuffer b = ByteBuffer.wrap(payload);
                byte status = b.get();
                if (status == 0) {
                    Reply r = ok(SockAddr.decode(b));
                    if (b.hasRemaining()) {
                        throw new IllegalArgumentException(b.remaining() + " trailing bytes");
                    }
                    return r;
                }
                if (status != 1) {
                    throw new IllegalArgumentException("unknown reply status " + status);
                }
                int code = b.getInt();
                Result result;
                try {
                    result = Result.of(code);
                } catch (org.nccl4j.NcclException e) {
                    result = Result.INTERNAL_ERROR;
                }
                byte[] d = new byte[checkLen(b.getInt(), b)];
                b.get(d);
                byte[] h = new byte[checkLen(b.getInt(), b)];
                b.get(h);
                String hint = new String(h, StandardCharsets.UTF_8);
                return error(result, new String(d, StandardCharsets.UTF_8), hint.isEmpty() ? null : hint);
            } catch (BufferUnderflowException e) {
                throw new IllegalArgumentException("reply truncated", e);
            }
        }

        private static int checkLen(int n, ByteBuffer b) {
            if (n < 0 || n > b.remaining()) {
                throw new IllegalArgumentException("bad text length " + n);
            }
            return n;
        }
    }
}
