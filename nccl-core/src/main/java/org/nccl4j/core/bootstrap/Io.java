package org.nccl4j.core.bootstrap;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.wait.Deadline;
import org.nccl4j.net.spi.auth.ConnectionAuth;
import org.nccl4j.net.spi.iface.Unreachable;

/**
 * Deadline-bounded, abort-aware socket operations on non-blocking channels. Every wait is a
 * select of at most {@link #SLICE_MS}, after which the {@link Stopper} and the deadline are
 * checked, so nothing blocks past either.
 */
final class Io {
    /** Longest single select; bounds how late an abort is noticed if a wake-up is lost. */
    static final long SLICE_MS = 100;
    /** NCCL's {@code RETRY_TIMEDOUT_TIMES}. */
    static final int RETRY_TIMEDOUT_TIMES = 3;
    /** Pause between connects to a host that cannot be reached just now. */
    static final long UNREACHABLE_RETRY_MS = 100;

    static final String TIMEOUT_HINT =
            "the peer is slow, stuck or gone: check its log; raise the deadline (NCCL4J_INIT_TIMEOUT_MS for init) if it is only slow";
    static final String REMOTE_HINT = "the peer process exited, aborted or lost its network: check its log";
    static final String PROTOCOL_HINT = "the peer sent something this rank cannot read: every rank must run the same "
            + "nccl4j version and make the same bootstrap calls in the same order";

    private Io() {
    }

    /**
     * Connects, retrying refusals ({@code ECONNREFUSED}) every millisecond for up to
     * {@code refusedWindowMs} (NCCL's 1 ms × 20000), with an INFO line every 1000 refusals.
     *
     * @param addr            where to connect
     * @param deadline        the overall deadline
     * @param stopper         abort/close
     * @param refusedWindowMs how long refusals are retried
     * @param what            e.g. "rank 2 of 4 connecting to the bootstrap root at 10.0.0.1:5000"
     * @return a connected, non-blocking channel with TCP_NODELAY set
     * @throws NcclException TIMEOUT when the deadline passes, SYSTEM_ERROR when connecting fails
     */
    static SocketChannel connect(InetSocketAddress addr, Deadline deadline, Stopper stopper, long refusedWindowMs,
                                 String what) {
        long start = System.nanoTime();
        int refused = 0;
        int timedOut = 0;
        int unreachable = 0;
        Selector sel = null;
        try {
            while (true) {
                stopper.check(what);
                if (deadline.expired()) {
                    throw failure(Result.TIMEOUT, what + " timed out (" + deadline.total().toMillis()
                                    + " ms deadline" + (refused > 0 ? ", connection refused " + refused + " times" : "") + ")",
                            refused > 0 ? "nothing listens at " + SockAddr.text(addr) + ": is the process there running?"
                                    : TIMEOUT_HINT);
                }
                SocketChannel ch = SocketChannel.open();
                try {
                    ch.configureBlocking(false);
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    boolean done = ch.connect(addr);
                    if (!done) {
                        if (sel == null) {
                            sel = stopper.open();
                        }
                        SelectionKey key = ch.register(sel, SelectionKey.OP_CONNECT);
                        while (!done) {
                            stopper.check(what);
                            if (deadline.expired()) {
                                throw failure(Result.TIMEOUT, what + " timed out (" + deadline.total().toMillis()
                                                + " ms deadline, " + (refused > 0 ? "connection refused " + refused
                                                + " times, then no answer" : "no answer to the connection request") + ")",
                                        refused > 0 ? "nothing listens at " + SockAddr.text(addr)
                                                + ": is the process there running?" : TIMEOUT_HINT);
                            }
                            sel.select(Math.max(1, Math.min(SLICE_MS, deadline.remainingMillis()))); // 0 would wait forever
                            sel.selectedKeys().clear();
                            done = ch.finishConnect();
                        }
                        key.cancel();
                        sel.selectNow();
                    }
                    return ch;
                } catch (ConnectException e) {
                    closeQuietly(ch);
                    stopper.check(what);
                    String msg = String.valueOf(e.getMessage());
                    if (msg.toLowerCase(Locale.ROOT).contains("refused")) {
                        refused++;
                        if (refused % 1000 == 0) {
                            Log.info(Subsys.ALL, "Call to connect returned %s, retrying", msg);
                        }
                        if ((System.nanoTime() - start) / 1_000_000 >= refusedWindowMs) {
                            Log.warn("Connect to %s failed : %s", SockAddr.text(addr), msg);
                            throw NcclException.of(Result.SYSTEM_ERROR, what + " failed: " + msg + " (refused "
                                            + refused + " times in " + refusedWindowMs + " ms)",
                                    "nothing listens at " + SockAddr.text(addr)
                                            + ": check that the process there is running, or raise NCCL4J_CONNECT_TIMEOUT_MS", e);
                        }
                        sleepMillis(1);
                        continue;
                    }
                    if (msg.toLowerCase(Locale.ROOT).contains("timed out") && ++timedOut < RETRY_TIMEDOUT_TIMES) {
                        Log.info(Subsys.ALL, "Call to connect returned %s, retrying", msg);
                        continue;
                    }
                    throw connectFailed(addr, what, e);
                } catch (IOException e) {
                    closeQuietly(ch);
                    stopper.check(what);
                    if (Unreachable.is(e)) {
                        // A link that flaps: tried again until the deadline, as the Socket net does.
                        if (++unreachable % 50 == 1) {
                            Log.info(Subsys.ALL, "Call to connect returned %s, retrying", e.getMessage());
                        }
                        sleepMillis(UNREACHABLE_RETRY_MS);
                        continue;
                    }
                    throw connectFailed(addr, what, e);
                } catch (RuntimeException e) {
                    closeQuietly(ch);
                    throw e;
                }
            }
        } catch (IOException e) {
            stopper.check(what);
            throw connectFailed(addr, what, e);
        } finally {
            stopper.release(sel);
        }
    }

    private static NcclException connectFailed(InetSocketAddress addr, String what, IOException e) {
        Log.warn("Connect to %s failed : %s", SockAddr.text(addr), e.getMessage());
        return NcclException.of(Result.SYSTEM_ERROR, what + " failed: " + e.getMessage(),
                "check that " + SockAddr.text(addr) + " is reachable from this host (routes, firewall, NCCL_SOCKET_IFNAME)", e);
    }

    private static void sleepMillis(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw NcclException.of(Result.SYSTEM_ERROR, "interrupted while connecting", null, e);
        }
    }

    /**
     * Writes everything in {@code out} to {@code outCh} and reads one frame from {@code inCh}
     * with {@code reader}, both at once (either may be {@code null}).
     *
     * @param outCh    channel to write to, or {@code null}
     * @param out      bytes to write
     * @param inCh     channel to read from, or {@code null}
     * @param reader   the frame to read
     * @param deadline the deadline
     * @param stopper  abort/close
     * @param whatOut  e.g. "rank 1 of 4 sending allGather slice 1 to rank 2 at 10.0.0.2:4000"
     * @param whatIn   e.g. "rank 1 of 4 receiving allGather slice 0 from rank 0 at 10.0.0.1:4000"
     * @throws NcclException TIMEOUT (deadline), REMOTE_ERROR (closed or reset by the peer),
     *     INTERNAL_ERROR (refused frame), or the stopper's exception
     */
    static void transfer(SocketChannel outCh, ByteBuffer out, SocketChannel inCh, FrameReader reader,
                         Deadline deadline, Stopper stopper, String whatOut, String whatIn) {
        boolean outDone = outCh == null || !out.hasRemaining();
        boolean inDone = inCh == null;
        Selector sel = null;
        SelectionKey outKey = null;
        SelectionKey inKey = null;
        try {
            while (true) {
                stopper.check(inDone ? whatOut : whatIn);
                if (!outDone) {
                    try {
                        outCh.write(out);
                    } catch (IOException e) {
                        stopper.check(whatOut);
                        throw remote(whatOut, e);
                    }
                    outDone = !out.hasRemaining();
                }
                if (!inDone) {
                    try {
                        inDone = reader.readFrom(inCh);
                    } catch (ProtocolException e) {
                        Log.warn("%s: %s", whatIn, e.getMessage());
                        throw NcclException.of(Result.INTERNAL_ERROR, whatIn + " failed: " + e.getMessage(), PROTOCOL_HINT, e);
                    } catch (IOException e) {
                        stopper.check(whatIn);
                        throw remote(whatIn, e);
                    }
                }
                if (outDone && inDone) {
                    return;
                }
                if (deadline.expired()) {
                    String what = !inDone ? whatIn : whatOut;
                    String state = !inDone && reader.nothingYet() ? "nothing received" : !inDone ? "frame incomplete"
                            : out.remaining() + " bytes not yet taken by the peer";
                    throw failure(Result.TIMEOUT, what + " timed out (" + deadline.total().toMillis()
                            + " ms deadline, " + state + ")", TIMEOUT_HINT);
                }
                if (sel == null) {
                    sel = stopper.open();
                    if (outCh != null) {
                        outKey = outCh.register(sel, 0);
                    }
                    if (inCh != null) {
                        inKey = inCh == outCh ? outKey : inCh.register(sel, 0);
                    }
                }
                int outOps = outDone ? 0 : SelectionKey.OP_WRITE;
                int inOps = inDone ? 0 : SelectionKey.OP_READ;
                if (outKey != null && outKey == inKey) {
                    outKey.interestOps(outOps | inOps);
                } else {
                    if (outKey != null) {
                        outKey.interestOps(outOps);
                    }
                    if (inKey != null) {
                        inKey.interestOps(inOps);
                    }
                }
                sel.select(Math.max(1, Math.min(SLICE_MS, deadline.remainingMillis()))); // 0 would wait forever
                sel.selectedKeys().clear();
            }
        } catch (IOException | java.nio.channels.CancelledKeyException | java.nio.channels.ClosedSelectorException e) {
            String what = !inDone ? whatIn : whatOut;
            stopper.check(what);
            throw failure(Result.REMOTE_ERROR, what + " failed: " + e, REMOTE_HINT, e);
        } finally {
            stopper.release(sel);
        }
    }

    /** Logs a WARN line with the detail (as NCCL warns at each failure) and returns the exception. */
    static NcclException failure(Result result, String detail, String hint) {
        return failure(result, detail, hint, null);
    }

    static NcclException failure(Result result, String detail, String hint, Throwable cause) {
        Log.warn("%s", detail);
        return NcclException.of(result, detail, hint, cause);
    }

    static NcclException remote(String what, IOException e) {
        String msg = e instanceof EOFException ? "connection closed by remote peer" : String.valueOf(e.getMessage());
        return failure(Result.REMOTE_ERROR, what + " failed: " + msg, REMOTE_HINT, e);
    }

    /** Writes {@code out} fully. */
    static void write(SocketChannel ch, ByteBuffer out, Deadline deadline, Stopper stopper, String what) {
        transfer(ch, out, null, null, deadline, stopper, what, what);
    }

    /**
     * The connecting side's half of {@link ConnectionAuth}: reads the listener's challenge (one
     * frame) and returns {@code msg} (header, then frames) with the answer after the header.
     *
     * @param auth the authentication, or {@code null} (then {@code msg} is returned as it is)
     */
    static ByteBuffer authenticate(SocketChannel ch, ConnectionAuth auth, ByteBuffer msg, Deadline deadline,
                                   Stopper stopper, String what) {
        if (auth == null) {
            return msg;
        }
        byte[] challenge = readFrame(ch, ConnectionAuth.CHALLENGE_BYTES, deadline, stopper, what
                + " (waiting for its authentication challenge: is NCCL4J_AUTH_KEY set there too?)");
        if (challenge.length != ConnectionAuth.CHALLENGE_BYTES) {
            throw failure(Result.INTERNAL_ERROR, what + ": the authentication challenge has " + challenge.length
                    + " bytes, not " + ConnectionAuth.CHALLENGE_BYTES, PROTOCOL_HINT);
        }
        byte[] header = new byte[Wire.HEADER_BYTES];
        msg.get(msg.position(), header);
        ByteBuffer out = ByteBuffer.allocate(msg.remaining() + ConnectionAuth.TAG_BYTES);
        out.put(header).put(auth.answer(Wire.AUTH_PURPOSE, challenge, header))
                .put(msg.duplicate().position(msg.position() + Wire.HEADER_BYTES));
        return out.flip();
    }

    /** Reads one frame of at most {@code max} bytes. */
    static byte[] readFrame(SocketChannel ch, int max, Deadline deadline, Stopper stopper, String what) {
        FrameReader r = FrameReader.upTo(max);
        transfer(null, null, ch, r, deadline, stopper, what, what);
        return r.payload();
    }

    static void closeQuietly(java.io.Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException ignored) {
                // Closing on an error path: the first error is the one reported.
            }
        }
    }
}
