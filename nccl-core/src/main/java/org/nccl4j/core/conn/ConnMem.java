package org.nccl4j.core.conn;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.locks.LockSupport;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.wait.Futex;

/**
 * NCCL's connection memory ({@code ncclSendMem} / {@code ncclRecvMem}): a 4096-byte header whose
 * counters sit a cache line apart, followed by the step buffer. The receiver's header holds
 * {@code tail} (steps published by the producer) and {@code sizesFifo} (bytes per step, read by a
 * network proxy); the sender's holds {@code head} (steps released by the consumer). Counters are
 * published with release stores and read with acquire loads, so the bytes of a step are visible
 * before its counter is. The protocol buffers follow the header ({@link BuffSizes}).
 *
 * <p>A receive header also holds two tag FIFOs for a network proxy, which (unlike NCCL's,
 * posted per operation by the host) runs for the connection's lifetime and so must learn each
 * step's protocol: {@code sendTags}, written by the sending kernel before an LL or LL128 step's
 * lines (the proxy then checks the step's flags, as NCCL's {@code sizesFifo != -1} check does),
 * and {@code recvTags}, written by the receiving kernel before it waits on a step (the proxy
 * then posts that step's receive into the right buffer). A tag is {@code (step + 1) << 2 | protocol},
 * so tags of earlier steps in the same slot never match.
 *
 * <p>A host thread that has waited long enough for a counter sleeps on it (a Linux futex on its
 * low 32 bits) after counting itself in the header's {@code sleepers} word; whoever publishes
 * the counter then wakes it, across processes too. Publishing is a release store, a full fence
 * and a read of {@code sleepers}; the sleeper counts itself before it reads the counter a last
 * time, so one of the two always sees the other.
 */
public final class ConnMem {
    /** Slots per connection buffer ({@code NCCL_STEPS}). */
    public static final int STEPS = 8;
    /** Header size ({@code MEM_ALIGN}); buffers start here. */
    public static final long HEADER = 4096;
    /** Offset of {@code tail} in a receive header and {@code head} in a send header. */
    public static final long COUNTER = 0;
    /** Offset of {@code sleepers}: host threads asleep on the counter (a cache line of its own). */
    public static final long SLEEPERS = 64;
    /** Offset of {@code sizesFifo} (int[8]) in a receive header ({@code CACHE_LINE_SIZE}). */
    public static final long SIZES = 128;
    /** Offset of {@code sendTags} (long[8]) in a receive header. */
    public static final long SEND_TAGS = 256;
    /** Offset of {@code recvTags} (long[8]) in a receive header. */
    public static final long RECV_TAGS = 384;
    /**
     * Offset of {@code failed}: set by a side whose communicator failed or was aborted, in the
     * headers its peers wait on, so they fail at once instead of at their timeout (NCCL's peers
     * would wait forever) and pass the failure on along their own connections.
     */
    public static final long FAILED = 512;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private ConnMem() {
    }

    /**
     * @param header a header segment
     * @return its counter, read with acquire semantics
     */
    public static long counter(MemorySegment header) {
        return (long) LONG.getAcquire(header, COUNTER);
    }

    /**
     * Publishes a counter and wakes the threads asleep on it. No fence between the store and the
     * look at the sleepers (a fence per step waited for every store in flight, the data lines'
     * included, on the hot path of every step): a sleeper that counts itself in just as the
     * store is still on its way may miss this wake, and then sleeps out its bounded sleep
     * ({@link Futex#MAX_SLEEP_NANOS}) unless a later publish wakes it; threads only sleep after
     * milliseconds of waiting (see {@code Waiter}).
     *
     * @param header a header segment
     * @param value  the new counter, published with release semantics
     */
    public static void publish(MemorySegment header, long value) {
        LONG.setRelease(header, COUNTER, value);
        if ((int) INT.getOpaque(header, SLEEPERS) != 0) {
            Futex.wakeAll(header, COUNTER);
        }
    }

    /**
     * Marks the header's side failed and wakes the threads asleep on its counter, so they see it.
     *
     * @param header a header a peer waits on
     */
    public static void markFailed(MemorySegment header) {
        LONG.setRelease(header, FAILED, 1L);
        VarHandle.fullFence();
        if ((int) INT.getOpaque(header, SLEEPERS) != 0) {
            Futex.wakeAll(header, COUNTER);
        }
    }

    /**
     * @param header the header a side waits on
     * @return whether the peer that publishes into it marked itself failed
     */
    public static boolean failed(MemorySegment header) {
        return (long) LONG.getAcquire(header, FAILED) != 0;
    }

    /**
     * Sleeps until the counter reaches {@code target}, it is published, or {@code maxNanos} pass
     * (the caller checks abort and deadlines between sleeps). Without futexes for this memory
     * ({@link #canSleep}) it parks for 50 µs.
     *
     * @param header   a header segment
     * @param target   the counter value awaited
     * @param maxNanos the longest sleep
     */
    public static void sleep(MemorySegment header, long target, long maxNanos) {
        if (!canSleep(header)) {
            LockSupport.parkNanos(50_000);
            return;
        }
        INT.getAndAdd(header, SLEEPERS, 1);
        try {
            long v = counter(header);
            if (v < target) {
                // The low half is what the futex compares: the counter moves on by the time it
                // could wrap around to the same low 32 bits.
                Futex.await(header, COUNTER, (int) v, maxNanos);
            }
        } finally {
            INT.getAndAdd(header, SLEEPERS, -1);
        }
    }

    /**
     * @param header a header segment
     * @return whether a thread can sleep on its counter until a publish wakes it
     */
    public static boolean canSleep(MemorySegment header) {
        return Futex.usable(header) && ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    }

    /**
     * @param header a receive header
     * @param slot   step slot, 0..7
     * @return the byte count the producer wrote for that slot (acquire)
     */
    public static int size(MemorySegment header, int slot) {
        return (int) INT.getAcquire(header, SIZES + 4L * slot);
    }

    /**
     * @param header a receive header
     * @param slot   step slot
     * @param bytes  byte count of that step (plain store; the counter's release publishes it)
     */
    public static void setSize(MemorySegment header, int slot, int bytes) {
        INT.set(header, SIZES + 4L * slot, bytes);
    }

    /**
     * @param step a step
     * @param p    its protocol
     * @return the tag naming both
     */
    public static long tag(long step, Protocol p) {
        return (step + 1) << 2 | p.ordinal();
    }

    /**
     * @param tag  a tag read from a FIFO
     * @param step the step the reader is at
     * @return the protocol of {@code step} if the tag is for that step, else {@code null}
     */
    public static Protocol tagged(long tag, long step) {
        return (tag >>> 2) == step + 1 ? Protocol.values()[(int) (tag & 3)] : null;
    }

    /**
     * @param header a receive header
     * @param fifo   {@link #SEND_TAGS} or {@link #RECV_TAGS}
     * @param slot   step slot
     * @return the tag there (acquire)
     */
    public static long tagAt(MemorySegment header, long fifo, int slot) {
        return (long) LONG.getAcquire(header, fifo + 8L * slot);
    }

    /**
     * @param header a receive header
     * @param fifo   {@link #SEND_TAGS} or {@link #RECV_TAGS}
     * @param slot   step slot
     * @param tag    the tag, published with release semantics
     */
    public static void setTag(MemorySegment header, long fifo, int slot, long tag) {
        LONG.setRelease(header, fifo + 8L * slot, tag);
    }
}
