package org.nccl4j.core.kernel;

import java.lang.foreign.MemorySegment;
import org.nccl4j.core.reduce.Reducer;
import org.nccl4j.core.transport.Conn;
import org.nccl4j.core.transport.ConnMem;

/**
 * NCCL's Simple-protocol primitives for one channel of one ring: {@code send}, {@code recv},
 * {@code recvReduceSend}, {@code recvReduceCopy}, {@code recvReduceCopySend},
 * {@code recvCopySend}, {@code copySend}. Each call moves one chunk in slices of one step: wait
 * for data (recv) and credit (send), move or reduce the bytes, publish the counters.
 *
 * <p>Reductions read straight out of the peer's slot (no staging copy). Data leaving a rank's
 * own input goes through the reducer's pre-op; a fully reduced value goes through its post-op.
 */
public final class Prims {
    private static final int RECV = 1;
    private static final int SEND = 2;
    private static final int REDUCE = 4;
    private static final int SRC = 8;
    private static final int DST = 16;

    private final Conn send;
    private final Conn recv;
    private final Reducer reducer;
    private final int typeSize;
    private final Waiter waiter;
    private final long sliceBytes;

    /**
     * @param send     connection to the next rank, or {@code null}
     * @param recv     connection from the previous rank, or {@code null}
     * @param reducer  the reduction, or {@code null} for copies only
     * @param typeSize element size in bytes
     * @param waiter   how to wait
     */
    public Prims(Conn send, Conn recv, Reducer reducer, int typeSize, Waiter waiter) {
        this.send = send;
        this.recv = recv;
        this.reducer = reducer;
        this.typeSize = typeSize;
        this.waiter = waiter;
        int step = send != null ? send.stepSize() : recv.stepSize();
        this.sliceBytes = (long) step / typeSize * typeSize;
    }

    /** Sends {@code src} (the rank's input: pre-op applied). */
    void send(MemorySegment src, long off, long nelem) {
        run(SEND | SRC, src, off, null, 0, nelem, true, false);
    }

    /** Sends {@code src} as is (data that already went through the pre-op, or plain copies). */
    void sendRaw(MemorySegment src, long off, long nelem) {
        run(SEND | SRC, src, off, null, 0, nelem, false, false);
    }

    /** Receives into {@code dst}. */
    void recv(MemorySegment dst, long off, long nelem) {
        run(RECV | DST, null, 0, dst, off, nelem, false, false);
    }

    /** Reduces the received data with {@code src} and sends the result on. */
    void recvReduceSend(MemorySegment src, long off, long nelem) {
        run(RECV | REDUCE | SRC | SEND, src, off, null, 0, nelem, true, false);
    }

    /** Reduces the received data with {@code src} into {@code dst}. */
    void recvReduceCopy(MemorySegment src, long sOff, MemorySegment dst, long dOff, long nelem, boolean post) {
        run(RECV | REDUCE | SRC | DST, src, sOff, dst, dOff, nelem, true, post);
    }

    /** Reduces the received data with {@code src} into {@code dst} and sends the result on. */
    void recvReduceCopySend(MemorySegment src, long sOff, MemorySegment dst, long dOff, long nelem, boolean post) {
        run(RECV | REDUCE | SRC | DST | SEND, src, sOff, dst, dOff, nelem, true, post);
    }

    /** Receives into {@code dst} and forwards the same bytes. */
    void recvCopySend(MemorySegment dst, long off, long nelem) {
        run(RECV | DST | SEND, null, 0, dst, off, nelem, false, false);
    }

    /** Copies {@code src} to {@code dst} and sends it. */
    void copySend(MemorySegment src, long sOff, MemorySegment dst, long dOff, long nelem) {
        run(SRC | DST | SEND, src, sOff, dst, dOff, nelem, false, false);
    }

    private void run(int mode, MemorySegment src, long sOff, MemorySegment dst, long dOff, long nelem, boolean pre,
                     boolean post) {
        long bytes = Math.max(0, nelem) * typeSize;
        boolean applyPre = pre && reducer != null && reducer.hasPreOp();
        boolean applyPost = post && reducer != null && reducer.hasPostOp();
        long done = 0;
        do {
            long n = Math.min(sliceBytes, bytes - done);
            long elems = n / typeSize;
            MemorySegment rs = null;
            MemorySegment ss = null;
            if ((mode & RECV) != 0) {
                long s = recv.step();
                waiter.await(recv, s + 1, "data");
                rs = recv.buff().asSlice((s % ConnMem.STEPS) * recv.stepSize(), n);
            }
            if ((mode & SEND) != 0) {
                long s = send.step();
                waiter.await(send, s + 1 - ConnMem.STEPS, "credit");
                ss = send.buff().asSlice((s % ConnMem.STEPS) * send.stepSize(), n);
            }
            if (n > 0) {
                MemorySegment in = src == null ? null : src.asSlice(sOff + done, n);
                MemorySegment out = dst == null ? null : dst.asSlice(dOff + done, n);
                move(mode, rs, ss, in, out, elems, applyPre, applyPost);
            }
            if ((mode & SEND) != 0) {
                long s = send.step();
                ConnMem.setSize(send.publishHeader(), (int) (s % ConnMem.STEPS), (int) n);
                send.step(s + 1);
                send.publish(s + 1);
            }
            if ((mode & RECV) != 0) {
                long s = recv.step() + 1;
                recv.step(s);
                recv.publish(s);
            }
            done += n;
        } while (done < bytes);
    }

    private void move(int mode, MemorySegment rs, MemorySegment ss, MemorySegment in, MemorySegment out, long elems,
                      boolean pre, boolean post) {
        if ((mode & REDUCE) != 0) {
            MemorySegment target = out != null ? out : ss;
            MemorySegment operand = in;
            if (pre) {
                reducer.preOp(in, 0, target, 0, elems);
                operand = target;
            }
            reducer.reduce(rs, 0, operand, 0, target, 0, elems);
            if (post) {
                reducer.postOp(target, 0, elems);
            }
            if (out != null && ss != null) {
                MemorySegment.copy(out, 0, ss, 0, out.byteSize());
            }
            return;
        }
        MemorySegment from = rs != null ? rs : in;
        if (out != null && !same(from, out)) {
            if (pre && rs == null) {
                reducer.preOp(from, 0, out, 0, elems);
            } else {
                MemorySegment.copy(from, 0, out, 0, from.byteSize());
            }
            from = out;
        }
        if (ss != null) {
            if (pre && rs == null && from == in) {
                reducer.preOp(from, 0, ss, 0, elems);
            } else {
                MemorySegment.copy(from, 0, ss, 0, from.byteSize());
            }
        }
    }

    /** Whether two slices are the very same bytes (in-place operation). */
    static boolean same(MemorySegment a, MemorySegment b) {
        return a.address() == b.address() && a.heapBase().equals(b.heapBase()) && a.byteSize() == b.byteSize();
    }
}
