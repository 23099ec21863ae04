package org.nccl4j.core.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ChannelWorkersTest {
    private static Set<String> threadsNamed(String prefix) {
        Set<String> names = ConcurrentHashMap.newKeySet();
        Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith(prefix)).forEach(names::add);
        return names;
    }

    @Test
    void everyChannelRunsOncePerCallOnItsOwnThreadAndTheCallReturnsAfterAll() {
        ChannelWorkers w = new ChannelWorkers(3, "test-cw-a-", 200_000);
        try {
            for (int call = 1; call <= 2_000; call++) {
                AtomicIntegerArray runs = new AtomicIntegerArray(4);
                String[] threads = new String[4];
                int n = 1 + call % 4;
                w.run(n, c -> {
                    runs.incrementAndGet(c);
                    threads[c] = Thread.currentThread().getName();
                });
                for (int c = 0; c < 4; c++) {
                    assertEquals(c < n ? 1 : 0, runs.get(c), "call " + call + " channel " + c);
                }
                assertEquals(Thread.currentThread().getName(), threads[0]);
                for (int c = 1; c < n; c++) {
                    assertEquals("test-cw-a-" + c, threads[c]);
                }
            }
        } finally {
            assertTrue(w.stop(5_000));
        }
    }

    @Test
    void workersThatWentToSleepAreWokenByTheNextCall() throws InterruptedException {
        // No polling: every call after the pause finds the workers parked.
        ChannelWorkers w = new ChannelWorkers(2, "test-cw-b-", 0);
        try {
            AtomicInteger sum = new AtomicInteger();
            for (int call = 0; call < 50; call++) {
                Thread.sleep(2);
                w.run(3, c -> sum.addAndGet(c + 1));
            }
            assertEquals(50 * 6, sum.get());
        } finally {
            assertTrue(w.stop(5_000));
        }
    }

    @Test
    void aFailingChannelDoesNotStopTheOthersAndTheCallersFailureIsThrownAfterThem() {
        ChannelWorkers w = new ChannelWorkers(2, "test-cw-c-", 100_000);
        try {
            int[] done = new int[3];
            IllegalStateException boom = new IllegalStateException("channel 0");
            IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> w.run(3, c -> {
                if (c == 0) {
                    throw boom;
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                done[c] = 1;
            }));
            assertSame(boom, thrown);
            assertArrayEquals(new int[] {0, 1, 1}, done);
            // A worker's Error reaches the caller; the worker lives on for the next call.
            AssertionError err = new AssertionError("channel 2");
            assertSame(err, assertThrows(AssertionError.class, () -> w.run(3, c -> {
                if (c == 2) {
                    throw err;
                }
            })));
            AtomicInteger ran = new AtomicInteger();
            w.run(3, c -> ran.incrementAndGet());
            assertEquals(3, ran.get());
        } finally {
            assertTrue(w.stop(5_000));
        }
    }

    @Test
    void stopEndsTheThreads() {
        ChannelWorkers w = new ChannelWorkers(3, "test-cw-d-", 1_000_000);
        w.run(4, c -> { });
        assertEquals(Set.of("test-cw-d-1", "test-cw-d-2", "test-cw-d-3"), threadsNamed("test-cw-d-"));
        assertTrue(w.stop(5_000));
        assertFalse(threadsNamed("test-cw-d-").iterator().hasNext(), () -> "alive: " + threadsNamed("test-cw-d-"));
    }
}
