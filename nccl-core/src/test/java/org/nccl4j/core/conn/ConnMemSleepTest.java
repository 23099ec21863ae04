package org.nccl4j.core.conn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.wait.Futex;

/**
 * A thread asleep on a header's counter is woken by the publish that moves it, not by its
 * timeout: every sleep here may last a minute, so only the wake-up ends it within the test.
 */
class ConnMemSleepTest {
    private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);
    private static final long JOIN_MILLIS = 10_000;

    private static int sleepers(MemorySegment header) {
        return header.get(ValueLayout.JAVA_INT, ConnMem.SLEEPERS);
    }

    @Test
    void aPublishWakesTheThreadAsleepOnTheCounter() throws Exception {
        assumeTrue(Futex.AVAILABLE, "no futexes on " + System.getProperty("os.name") + "/" + System.getProperty("os.arch"));
        try (Arena arena = Arena.ofShared()) {
            MemorySegment header = arena.allocate(ConnMem.HEADER, 4096);
            assertTrue(ConnMem.canSleep(header));
            Thread sleeper = Thread.ofPlatform().daemon().start(() -> {
                while (ConnMem.counter(header) < 1) {
                    ConnMem.sleep(header, 1, MINUTE);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(JOIN_MILLIS);
            while (sleepers(header) == 0 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals(1, sleepers(header), "the sleeper counts itself in the header");
            Thread.sleep(50); // into the futex (a publish before it is seen by the futex's own check)
            ConnMem.publish(header, 1);
            sleeper.join(JOIN_MILLIS);
            assertFalse(sleeper.isAlive(), "still asleep after the publish: the wake-up was lost");
            assertEquals(0, sleepers(header), "the sleeper counts itself out");
        }
    }

    @Test
    void aCounterAlreadyThereOrMovedMeanwhileEndsTheSleepAtOnce() throws Exception {
        assumeTrue(Futex.AVAILABLE, "no futexes here");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment header = arena.allocate(ConnMem.HEADER, 4096);
            ConnMem.publish(header, 5);
            Thread t = Thread.ofPlatform().daemon().start(() -> {
                ConnMem.sleep(header, 3, MINUTE); // reached
                ConnMem.sleep(header, 6, MINUTE); // not reached: sleeps until the publish below
            });
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(JOIN_MILLIS);
            while (sleepers(header) == 0 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            ConnMem.publish(header, 6);
            t.join(JOIN_MILLIS);
            assertFalse(t.isAlive(), "a sleep outlived the counter it waited for");
        }
    }

    @Test
    void heapMemoryCannotBeSleptOnAndParksBriefly() {
        MemorySegment heap = MemorySegment.ofArray(new long[(int) (ConnMem.HEADER / 8)]);
        assertFalse(ConnMem.canSleep(heap));
        long t0 = System.nanoTime();
        ConnMem.sleep(heap, 1, MINUTE); // a short park, not a minute
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10), "heap sleep must not block");
    }
}
