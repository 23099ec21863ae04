package org.nccl4j.core.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * NCCL's connection memory ({@code ncclSendMem} / {@code ncclRecvMem}): a 4096-byte header whose
 * counters sit a cache line apart, followed by the step buffer. The receiver's header holds
 * {@code tail} (steps published by the producer) and {@code sizesFifo} (bytes per step, read by a
 * network proxy); the sender's holds {@code head} (steps released by the consumer). Counters are
 * published with release stores and read with acquire loads, so the bytes of a step are visible
 * before its counter is.
 */
public final class ConnMem {
    /** Slots per connection buffer ({@code NCCL_STEPS}). */
    public static final int STEPS = 8;
    /** Header size ({@code MEM_ALIGN}); buffers start here. */
    public static final long HEADER = 4096;
    /** Offset of {@code tail} in a receive header and {@code head} in a send header. */
    public static final long COUNTER = 0;
    /** Offset of {@code sizesFifo} (int[8]) in a receive header ({@code CACHE_LINE_SIZE}). */
    public static final long SIZES = 128;

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
     * @param header a header segment
     * @param value  the new counter, published with release semantics
     */
    public static void publish(MemorySegment header, long value) {
        LONG.setRelease(header, COUNTER, value);
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
}
