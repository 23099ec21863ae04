package org.nccl4j.core.wait;

import java.time.Duration;

/**
 * A point in time by which a wait must end ({@link System#nanoTime()} based, so wall-clock
 * changes do not move it).
 */
public final class Deadline {
    private final long endNanos;
    private final Duration total;

    private Deadline(long endNanos, Duration total) {
        this.endNanos = endNanos;
        this.total = total;
    }

    /**
     * @param timeout how long from now
     * @return the deadline
     */
    public static Deadline after(Duration timeout) {
        return new Deadline(System.nanoTime() + timeout.toNanos(), timeout);
    }

    /**
     * @param millis how long from now, in milliseconds
     * @return the deadline
     */
    public static Deadline afterMillis(long millis) {
        return after(Duration.ofMillis(millis));
    }

    /** @return whether the deadline has passed */
    public boolean expired() {
        return remainingNanos() <= 0;
    }

    /** @return nanoseconds left, never negative */
    public long remainingNanos() {
        return Math.max(0, endNanos - System.nanoTime());
    }

    /** @return milliseconds left, at least 1 while not expired, 0 once expired */
    public long remainingMillis() {
        long n = remainingNanos();
        return n == 0 ? 0 : Math.max(1, n / 1_000_000);
    }

    /**
     * @param other another deadline
     * @return whichever ends first
     */
    public Deadline min(Deadline other) {
        return other.endNanos - endNanos < 0 ? other : this;
    }

    /** @return the timeout this deadline was created with, for messages */
    public Duration total() {
        return total;
    }

    @Override
    public String toString() {
        return total.toMillis() + " ms deadline (" + remainingMillis() + " ms left)";
    }
}
