package org.nccl4j.core.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.nccl4j.core.reduce.Reducer;
import org.nccl4j.core.transport.Conn;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.proto.Ll128Line;
import org.nccl4j.core.proto.LlLine;
import org.nccl4j.core.proto.Protocol;

/**
 * NCCL's primitives for one channel, for any of the three protocols: {@code send},
 * {@code recv}, {@code recvReduceSend}, {@code recvReduceCopy}, {@code recvReduceCopySend},
 * {@code recvCopySend}, {@code copySend}. Each call moves one chunk in slices of one step: wait
 * for data (recv) and credit (send), move or reduce the bytes, publish. Like NCCL's
 * {@code Primitives<..., FanAsymmetric<MaxRecv, MaxSend>>} it receives from several peers
 * (reduced together: a tree's children) and sends to several (the same bytes to each).
 *
 * <p>Simple reads and writes the peers' step slots directly and publishes a tail. LL and
 * LL128 decode each received step's lines into the channel's {@link Staging} as they arrive
 * (polling the step's flag: no tail), reduce or copy there with the same code, and encode the
 * outgoing data into lines carrying the step's flag. Data leaving a rank's own input goes
 * through the reducer's pre-op; a fully reduced value goes through its post-op.
 *
 * <p>In place: between {@link #beginInPlace} and {@link #endInPlace} a Simple step whose data
 * lies in the caller's memory as it is goes to a receiver that can read it there
 * ({@link Conn#postInPlace}: a rank of this process reads any native memory, a rank JVM of this
 * host memory from {@link org.nccl4j.core.shm.SharedMemory}) as a place in that memory rather
 * than a copy in the slot, and the call ends once every such step was read. A receiver reads
 * whatever its sender posted where it lies ({@link Conn#inPlaceData}), in any call.
 */
public final class Prims {
    private static final int RECV = 1;
    private static final int SEND = 2;
    private static final int REDUCE = 4;
    private static final int SRC = 8;
    private static final int DST = 16;
    /** {@link #move}'s answer: where the bytes to send on are. */
    private static final int NONE = 0;
    private static final int OUT = 1;
    private static final int SCRATCH = 2;
    private static final int IN = 3;
    private static final int RECEIVED = 4;

    /** Data of LL lines is read and written little-endian: {@code data1} holds the first 4 bytes. */
    private static final ValueLayout.OfLong DATA = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Conn[] recvs;
    private final Conn[] sends;
    private final Reducer reducer;
    private final int typeSize;
    private final Waiter waiter;
    private final Protocol proto;
    private final Staging staging;
    private final long sliceBytes;
    private final long stagingBytes;
    /** A connection through the network proxy, whose rounds this call's waits run; {@code null} if none. */
    private final Conn net;
    /** Per receive connection, where the current Simple step's data is when posted in place, else {@code null}. */
    private final MemorySegment[] inPlaceData;
    private final long[] inPlaceOffset;
    /** Whether this call's Simple sends may be posted in place ({@link #beginInPlace}). */
    private boolean inPlace;
    /** Whether one was since {@link #beginInPlace}: {@link #awaitInPlaceReads} then waits. */
    private boolean postedInPlace;

    /**
     * @param recvs    connections received from (reduced together in the given order)
     * @param sends    connections sent to
     * @param reducer  the reduction, or {@code null} for copies only
     * @param typeSize element size in bytes
     * @param waiter   how to wait
     * @param proto    the protocol
     * @param staging  the channel's scratch memory (LL, LL128)
     */
    Prims(Conn[] recvs, Conn[] sends, Reducer reducer, int typeSize, Waiter waiter, Protocol proto, Staging staging) {
        this.recvs = recvs.clone();
        this.sends = sends.clone();
        this.reducer = reducer;
        this.typeSize = typeSize;
        this.waiter = waiter;
        this.proto = proto;
        this.staging = staging;
        Conn any = sends.length > 0 ? sends[0] : recvs.length > 0 ? recvs[0] : null;
        // Without peers (a lone tree node) a call is one local slice.
        long data = any == null ? 1 << 30 : proto.dataBytesPerStep(any.stepSize(proto));
        this.sliceBytes = Math.max(typeSize, data / typeSize * typeSize);
        this.stagingBytes = (data + 7) / 8 * 8;
        this.net = firstViaProxy(recvs, sends);
        this.inPlaceData = new MemorySegment[recvs.length];
        this.inPlaceOffset = new long[recvs.length];
    }

    /**
     * Lets this call's Simple sends be posted in place. The kernel must leave every byte it sent
     * unchanged until {@link #awaitInPlaceReads} returns, except bytes whose change depends on
     * the receiver having read them (a ring AllReduce's in-place output).
     */
    void beginInPlace() {
        inPlace = proto == Protocol.SIMPLE;
        postedInPlace = false;
    }

    /** Waits until the receivers have released every step this call posted in place: the memory is the caller's again. */
    void awaitInPlaceReads() {
        if (!postedInPlace) {
            return;
        }
        if (net != null) {
            net.helping(true);
        }
        try {
            for (Conn c : sends) {
                if (c.creditSeen() < c.step()) {
                    c.creditSeen(waiter.await(c, c.step(), "credit", net));
                }
            }
        } finally {
            if (net != null) {
                net.helping(false);
            }
        }
        postedInPlace = false;
    }

    /** Ends what {@link #beginInPlace} began (after {@link #awaitInPlaceReads}, or on a failure). */
    void endInPlace() {
        inPlace = false;
        postedInPlace = false;
    }

    /** @return the first connection a network proxy moves, or {@code null} */
    private static Conn firstViaProxy(Conn[] recvs, Conn[] sends) {
        for (Conn[] side : new Conn[][] {recvs, sends}) {
            for (Conn c : side) {
                if (c.viaProxy()) {
                    return c;
                }
            }
        }
        return null;
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
        recvReduceCopy(src, sOff, dst, dOff, nelem, true, post);
    }

    /** The same, with {@code src} taken as is when {@code pre} is false (data already pre-op'd). */
    void recvReduceCopy(MemorySegment src, long sOff, MemorySegment dst, long dOff, long nelem, boolean pre,
                        boolean post) {
        run(RECV | REDUCE | SRC | DST, src, sOff, dst, dOff, nelem, pre, post);
    }

    /** @return elements a step carries: a call of at most this many moves in one step */
    long sliceElems() {
        return sliceBytes / typeSize;
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
        long slices = Math.max(1, (bytes + sliceBytes - 1) / sliceBytes);
        if (net == null) {
            steps(mode, src, sOff, dst, dOff, bytes, slices, applyPre, applyPost);
            return;
        }
        // This thread runs the network proxy's rounds in every wait of the call (Proxy#helping).
        net.helping(true);
        try {
            steps(mode, src, sOff, dst, dOff, bytes, slices, applyPre, applyPost);
        } finally {
            net.helping(false);
        }
    }

    private void steps(int mode, MemorySegment src, long sOff, MemorySegment dst, long dOff, long bytes, long slices,
                       boolean applyPre, boolean applyPost) {
        long done = 0;
        for (long k = 0; k < slices; k++) {
            long n = Math.min(sliceBytes, bytes - done);
            // One method per protocol: each is compiled on its own, small, when it gets hot.
            if (proto == Protocol.SIMPLE) {
                simpleStep(mode, src, sOff + done, dst, dOff + done, n, slices - k, applyPre, applyPost);
            } else {
                lineStep(mode, src, sOff + done, dst, dOff + done, n, slices - k, applyPre, applyPost);
            }
            if ((mode & RECV) != 0) {
                for (Conn c : recvs) {
                    long s = c.step() + 1;
                    c.step(s);
                    c.publish(s);
                }
            }
            done += n;
        }
    }

    /** One Simple step: the peers' slots are read and written in place, then a tail is published. */
    private void simpleStep(int mode, MemorySegment in, long inOff, MemorySegment out, long outOff, long n,
                            long remaining, boolean pre, boolean post) {
        if ((mode & RECV) != 0) {
            for (int i = 0; i < recvs.length; i++) {
                Conn c = recvs[i];
                long s = c.step();
                c.announce(s + Math.min(ConnMem.STEPS, remaining), proto);
                waiter.await(c, s + 1, "data", net);
                MemorySegment d = c.inPlaceData(s);
                inPlaceData[i] = d;
                inPlaceOffset[i] = d == null ? 0 : c.inPlaceOffset(s);
            }
        }
        MemorySegment scratch = null;
        long scratchOff = 0;
        if ((mode & SEND) != 0) {
            awaitCredit();
            if (sends.length > 0) {
                scratch = sends[0].buff(proto);
                scratchOff = sends[0].slotOffset(proto, sends[0].step());
            }
        }
        int moved = n > 0 ? move(mode, scratch, scratchOff, in, inOff, out, outOff, n / typeSize, pre, post) : NONE;
        if ((mode & SEND) != 0) {
            MemorySegment result = segment(moved, scratch, in, out);
            long resultOff = offset(moved, scratchOff, inOff, outOff);
            // The caller's own memory, as it is, may go in place.
            boolean asIs = inPlace && n > 0 && (moved == OUT || moved == IN);
            for (Conn c : sends) {
                long s = c.step();
                if (asIs && c.postInPlace(s, result, resultOff, n)) {
                    postedInPlace = true;
                } else {
                    c.postInSlot(s);
                    if (n > 0) {
                        MemorySegment slot = c.buff(proto);
                        long slotOff = c.slotOffset(proto, s);
                        if (!sameStart(result, resultOff, slot, slotOff)) {
                            MemorySegment.copy(result, resultOff, slot, slotOff, n);
                        }
                    }
                }
                c.postSend(s, proto, (int) n);
                c.step(s + 1);
                c.publish(s + 1);
            }
        }
    }

    /** One LL or LL128 step: received lines are decoded into staging, outgoing data encoded into lines. */
    private void lineStep(int mode, MemorySegment in, long inOff, MemorySegment out, long outOff, long n,
                          long remaining, boolean pre, boolean post) {
        if ((mode & RECV) != 0) {
            for (int i = 0; i < recvs.length; i++) {
                receiveLines(i, n, remaining);
            }
        }
        MemorySegment scratch = null;
        if ((mode & SEND) != 0) {
            awaitCredit();
            scratch = staging.send(stagingBytes);
        }
        int moved = n > 0 ? move(mode, scratch, 0, in, inOff, out, outOff, n / typeSize, pre, post) : NONE;
        if ((mode & SEND) != 0) {
            MemorySegment result = segment(moved, scratch, in, out);
            long resultOff = offset(moved, 0, inOff, outOff);
            for (Conn c : sends) {
                deliverLines(c, result, resultOff, n);
            }
        }
    }

    /**
     * Waits until every send connection has a free slot. The head last seen is kept on the
     * connection and the shared one read only when that is not enough (NCCL's
     * {@code sendConnHeadCache}): about once in {@link ConnMem#STEPS} steps instead of every
     * step, each read a cache line the receiver wrote.
     */
    private void awaitCredit() {
        for (Conn c : sends) {
            long need = c.step() + 1 - ConnMem.STEPS;
            if (need > c.creditSeen()) {
                c.creditSeen(waiter.await(c, need, "credit", net));
            }
        }
    }

    /**
     * The memory holding the current step's data received from {@code recvs[i]}: its Simple
     * slot's buffer, or the staging its lines were decoded into ({@link #receivedOffset} says
     * where in it). Recomputed where needed rather than kept in an array: stores of the several
     * segment classes into one would deoptimize the compiled kernel again and again.
     */
    private MemorySegment received(int i) {
        if (proto != Protocol.SIMPLE) {
            return staging.recv(i, stagingBytes);
        }
        MemorySegment d = inPlaceData[i];
        return d != null ? d : recvs[i].buff(proto);
    }

    /** Where in {@link #received} the current step's data starts. */
    private long receivedOffset(int i) {
        if (proto != Protocol.SIMPLE) {
            return 0;
        }
        return inPlaceData[i] != null ? inPlaceOffset[i] : recvs[i].slotOffset(proto, recvs[i].step());
    }

    /**
     * Waits for the lines of the next step from {@code recvs[i]} and decodes its {@code n} data
     * bytes into staging.
     *
     * @param remaining slices of this call still to come, this one included (announced ahead to a proxy)
     */
    private void receiveLines(int i, long n, long remaining) {
        Conn c = recvs[i];
        long s = c.step();
        c.announce(s + Math.min(ConnMem.STEPS, remaining), proto);
        if (c.viaProxy()) {
            waiter.await(c, s + 1, "data", net);
        }
        MemorySegment out = staging.recv(i, stagingBytes);
        MemorySegment lines = c.buff(proto);
        boolean ll = proto == Protocol.LL;
        long first = c.slotOffset(proto, s) / (ll ? LlLine.BYTES : Ll128Line.BYTES);
        long count = ll ? LlLine.lines(n) : Ll128Line.lines(n);
        long line = 0;
        int round = 0;
        long start = 0;
        while (line < count) {
            boolean got = ll ? LlLine.read(lines, first + line, LlLine.flag(s), out, line * LlLine.DATA_BYTES)
                    : Ll128Line.read(lines, first + line, Ll128Line.flag(s), out, line * Ll128Line.DATA_BYTES,
                    Math.min(Ll128Line.DATA_BYTES, n - line * Ll128Line.DATA_BYTES));
            if (got) {
                line++;
                round = 0;
                start = 0;
                continue;
            }
            if (start == 0) {
                start = System.nanoTime();
            }
            waiter.idle(c, s + 1, "data", ++round, start, net);
        }
    }

    /** Posts the step's data ({@code n} bytes at {@code off} in {@code data}) to {@code c} as flagged lines. */
    private void deliverLines(Conn c, MemorySegment data, long off, long n) {
        long s = c.step();
        c.postSend(s, proto, proto.wireBytes(n));
        MemorySegment lines = c.buff(proto);
        long slotOff = c.slotOffset(proto, s);
        if (proto == Protocol.LL) {
            writeLl(lines, slotOff / LlLine.BYTES, data, off, n, LlLine.flag(s));
        } else {
            long flag = Ll128Line.flag(s);
            long first = slotOff / Ll128Line.BYTES;
            for (long i = 0, o = 0; o < n; i++, o += Ll128Line.DATA_BYTES) {
                Ll128Line.write(lines, first + i, data, off + o, Math.min(Ll128Line.DATA_BYTES, n - o), flag);
            }
        }
        c.step(s + 1);
        if (c.viaProxy()) {
            c.wake();
        } else {
            // The lines carry the data; the tail is what a receiver asleep on it is woken by.
            c.publish(s + 1);
        }
    }

    /** Writes {@code n} bytes at {@code off} in {@code data} as LL lines from line {@code first} on. */
    private static void writeLl(MemorySegment lines, long first, MemorySegment data, long off, long n, int flag) {
        long full = n / LlLine.DATA_BYTES;
        for (long i = 0; i < full; i++) {
            LlLine.write(lines, first + i, data.get(DATA, off + i * LlLine.DATA_BYTES), flag);
        }
        long rest = n - full * LlLine.DATA_BYTES;
        if (rest > 0) {
            long d = 0;
            for (int b = 0; b < rest; b++) {
                d |= (data.get(ValueLayout.JAVA_BYTE, off + full * LlLine.DATA_BYTES + b) & 0xFFL) << (8 * b);
            }
            LlLine.write(lines, first + full, d, flag);
        }
    }

    /**
     * Reduces or copies one slice. Segments come with offsets, not as slices: a slice is an
     * object, and a small call's steps would allocate several each.
     *
     * @param scratch where outgoing data is built when it lands nowhere else, or {@code null}
     * @return where the bytes to send on are: {@link #OUT}, {@link #SCRATCH}, {@link #IN} or
     *     {@link #RECEIVED} (from the first peer)
     */
    private int move(int mode, MemorySegment scratch, long scratchOff, MemorySegment in, long inOff,
                     MemorySegment out, long outOff, long elems, boolean pre, boolean post) {
        if ((mode & REDUCE) != 0) {
            MemorySegment target = out != null ? out : scratch;
            long targetOff = out != null ? outOff : scratchOff;
            MemorySegment operand = in;
            long operandOff = inOff;
            // The own input's pre-op (AVG's scaling) in the first reduction's pass, as NCCL's.
            for (int i = 0; i < recvs.length; i++) {
                if (pre && i == 0) {
                    reducer.reducePreOp(received(i), receivedOffset(i), operand, operandOff, target, targetOff, elems);
                } else {
                    reducer.reduce(received(i), receivedOffset(i), operand, operandOff, target, targetOff, elems);
                }
                operand = target;
                operandOff = targetOff;
            }
            if (pre && recvs.length == 0) {
                reducer.preOp(in, inOff, target, targetOff, elems);
            }
            if (post) {
                reducer.postOp(target, targetOff, elems);
            }
            return out != null ? OUT : SCRATCH;
        }
        boolean recv = (mode & RECV) != 0;
        MemorySegment from = recv ? received(0) : in;
        long fromOff = recv ? receivedOffset(0) : inOff;
        boolean ownInput = pre && !recv;
        if (out != null && !sameStart(from, fromOff, out, outOff)) {
            if (ownInput) {
                reducer.preOp(from, fromOff, out, outOff, elems);
            } else {
                MemorySegment.copy(from, fromOff, out, outOff, elems * typeSize);
            }
            return OUT;
        }
        if (ownInput && scratch != null) {
            reducer.preOp(from, fromOff, scratch, scratchOff, elems);
            return SCRATCH;
        }
        return recv ? RECEIVED : IN;
    }

    /** The segment {@link #move}'s answer names ({@link #RECEIVED}: the first peer's). */
    private MemorySegment segment(int moved, MemorySegment scratch, MemorySegment in, MemorySegment out) {
        return switch (moved) {
            case OUT -> out;
            case SCRATCH -> scratch;
            case IN -> in;
            case RECEIVED -> received(0);
            default -> null;
        };
    }

    /** Where in {@link #segment} the bytes start. */
    private long offset(int moved, long scratchOff, long inOff, long outOff) {
        return switch (moved) {
            case OUT -> outOff;
            case SCRATCH -> scratchOff;
            case IN -> inOff;
            case RECEIVED -> receivedOffset(0);
            default -> 0;
        };
    }

    /** Whether two slices are the very same bytes (in-place operation). */
    static boolean same(MemorySegment a, MemorySegment b) {
        return sameStart(a, b) && a.byteSize() == b.byteSize();
    }

    /** Whether two segments start at the very same byte (an in-place operation's buffers). */
    static boolean sameStart(MemorySegment a, MemorySegment b) {
        return sameStart(a, 0, b, 0);
    }

    /**
     * Whether byte {@code aOff} of {@code a} is byte {@code bOff} of {@code b}. The heap bases
     * are compared last and only for two distinct heap segments: each {@code heapBase()} of a
     * heap segment is a new {@code Optional}, which only C2's escape analysis removes, and an
     * in-place call on a Java array passes the same segment for both.
     */
    private static boolean sameStart(MemorySegment a, long aOff, MemorySegment b, long bOff) {
        if (a.address() + aOff != b.address() + bOff) {
            return false;
        }
        if (a == b || a.isNative() || b.isNative()) {
            return a.isNative() == b.isNative();
        }
        return a.heapBase().orElseThrow() == b.heapBase().orElseThrow();
    }
}
