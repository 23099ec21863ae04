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
    /**
     * Offset of {@code inPlaceSlots} in a receive header: bit {@code k} says slot {@code k}'s
     * step was posted in place ({@link #IN_PLACE}). In the tail's cache line, which the sender
     * writes and the receiver reads each step anyway: a step in its slot costs no other line.
     */
    public static final long IN_PLACE_SLOTS = 8;
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
    /**
     * Offset of {@code inPlaceOk} in a receive header: set by the receiver before its sender
     * connects when it can read the sender's memory (a rank JVM its {@code SharedMemory}, a rank of
     * the same process any native memory); the sender then may post a Simple step as a place in
     * its own memory ({@link #IN_PLACE}) instead of copying it here.
     */
    public static final long IN_PLACE_OK = 576;
    /**
     * Offset of the in-place FIFO (per slot: the allocation's id, its descriptor and the step's
     * offset in it, or 0, -1 and its address from the same process: long[8][3]) in a receive
     * header, valid for the slots {@link #IN_PLACE_SLOTS} marks.
     */
    public static final long IN_PLACE = 640;

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
     * @param header a receive header
     * @param ok     whether the receiver reads what its sender posts in place
     */
    public static void setInPlaceOk(MemorySegment header, boolean ok) {
        LONG.setRelease(header, IN_PLACE_OK, ok ? 1L : 0L);
    }

    /**
     * @param header a receive header
     * @return whether its receiver reads what its sender posts in place
     */
    public static boolean inPlaceOk(MemorySegment header) {
        return (long) LONG.getAcquire(header, IN_PLACE_OK) != 0;
    }

    /**
     * Says where a Simple step's data is (plain stores; the counter's release publishes them).
     *
     * @param header a receive header
     * @param slot   step slot
     * @param id     the sender's allocation holding the data, or 0 from a rank of the same process
     * @param fd     that allocation's descriptor in the sender, or -1 from the same process
     * @param offset the data's offset in it, or from the same process its address
     */
    public static void setInPlace(MemorySegment header, int slot, long id, int fd, long offset) {
        long at = IN_PLACE + 24L * slot;
        LONG.set(header, at, id);
        LONG.set(header, at + 8, (long) fd);
        LONG.set(header, at + 16, offset);
    }

    /**
     * Says which slots' steps were posted in place (their sender only, which keeps the value it
     * wrote: the word is never read back on the sending side; the counter's release publishes it).
     *
     * @param header a receive header
     * @param slots  bit {@code k} set: slot {@code k}'s step is described by {@link #setInPlace}
     */
    public static void markInPlace(MemorySegment header, int slots) {
        LONG.setOpaque(header, IN_PLACE_SLOTS, (long) slots);
    }

    /**
     * @param header a receive header
     * @param slot   step slot, its step's counter seen
     * @return whether the step was posted in place
     */
    public static boolean inPlace(MemorySegment header, int slot) {
        return ((long) LONG.getOpaque(header, IN_PLACE_SLOTS) & 1L << slot) != 0;
    }

    /**
     * @param header a receive header
     * @param slot   step slot
     * @return the sender's allocation holding the step's data
     */
    public static long inPlaceId(MemorySegment header, int slot) {
        return (long) LONG.get(header, IN_PLACE + 24L * slot);
    }

    /** @return the descriptor {@link #setInPlace} recorded for the slot */
    public static int inPlaceFd(MemorySegment header, int slot) {
        return (int) (long) LONG.get(header, IN_PLACE + 24L * slot + 8);
    }

    /** @return the offset {@link #setInPlace} recorded for the slot */
    public static long inPlaceOffset(MemorySegment header, int slot) {
        return (long) LONG.get(header, IN_PLACE + 24L * slot + 16);
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
