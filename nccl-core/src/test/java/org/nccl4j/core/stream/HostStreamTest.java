package org.nccl4j.core.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.testkit.ProcessResources;

/**
 * A stream's waits are bounded, an Error ends its thread instead of being survived, and a caller
 * about to block runs the launch itself when the stream is idle, in order with the others.
 */
class HostStreamTest {
    private static final long OP_TIMEOUT_NANOS = 200_000_000L;

    @Test
    void aBlockingCallOnAnIdleStreamRunsOnTheCallingThread() {
        HostStream s = new HostStream(OP_TIMEOUT_NANOS);
        try {
            AtomicReference<Thread> ran = new AtomicReference<>();
            assertTrue(s.enterIfIdle(e -> { }));
            try {
                ran.set(Thread.currentThread());
                assertFalse(s.query(), "counted as submitted while it runs");
            } finally {
                s.exitInline();
            }
            assertSame(Thread.currentThread(), ran.get());
            assertTrue(s.query(), "counted as submitted and finished");
            s.synchronize();
        } finally {
            s.stop();
        }
    }

    @Test
    void aBusyStreamRunsNothingInlineAndKeepsTheOrder() throws Exception {
        HostStream s = new HostStream(OP_TIMEOUT_NANOS);
        try {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch started = new CountDownLatch(1);
            List<String> order = new CopyOnWriteArrayList<>();
            s.submit(() -> {
                started.countDown();
                awaitQuietly(release);
                order.add("queued");
            });
            assertTrue(started.await(10, TimeUnit.SECONDS));
            assertFalse(s.enterIfIdle(e -> { }), "a launch is running");
            release.countDown();
            s.synchronize();
            assertTrue(s.enterIfIdle(e -> { }));
            try {
                // Submitted from another thread while this one runs inline: it runs after it.
                Thread other = Thread.ofPlatform().start(() -> s.submit(() -> order.add("submitted meanwhile")));
                joinQuietly(other);
                order.add("inline");
            } finally {
                s.exitInline();
            }
            s.synchronize();
            assertEquals(List.of("queued", "inline", "submitted meanwhile"), order);
        } finally {
            s.stop();
        }
    }

    @Test
    void aStuckLaunchFailsSynchronizeAndAwaitWithTimeoutAfterTheBound() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            HostStream s = new HostStream(OP_TIMEOUT_NANOS);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch started = new CountDownLatch(1);
            List<NcclException> stalls = new CopyOnWriteArrayList<>();
            s.submit(new HostStream.Launch() {
                @Override
                public void run() {
                    started.countDown();
                    try {
                        release.await(50, TimeUnit.SECONDS); // stands for a plugin call that never returns
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }

                @Override
                public void stalled(NcclException e) {
                    stalls.add(e);
                }
            });
            // On the stream's thread (a waiter would otherwise run it itself, as it runs any
            // launch whose own waits are bounded).
            assertTrue(started.await(10, TimeUnit.SECONDS));
            HostCompletion c = new HostCompletion(s);
            long t0 = System.nanoTime();
            NcclException sync = assertThrows(NcclException.class, s::synchronize);
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(Result.TIMEOUT, sync.result(), sync.getMessage());
            assertTrue(sync.getMessage().contains("finished no operation for"), sync.getMessage());
            long bound = (OP_TIMEOUT_NANOS + HostStream.GRACE_NANOS) / 1_000_000;
            assertTrue(tookMs >= bound - 50 && tookMs < bound + 3_000, "synchronize gave up after " + tookMs + " ms");
            NcclException gaveUp = assertThrows(NcclException.class, c::await);
            assertEquals(Result.TIMEOUT, gaveUp.result());
            // The stuck launch heard each first (its communicator fails, and its waits end on the abort).
            assertEquals(List.of(sync, gaveUp), stalls);
            assertFalse(s.stop(100), "a stream whose thread is stuck reports it did not stop");
            assertTrue(ProcessResources.ncclThreads().contains(s.toString()));
            release.countDown();
            assertTrue(s.stop(5_000));
            assertFalse(ProcessResources.ncclThreads().contains(s.toString()));
        });
    }

    @Test
    void aStuckLaunchACallerRunsInlineHearsTheWaitThatGivesUp() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            HostStream s = new HostStream(OP_TIMEOUT_NANOS);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch entered = new CountDownLatch(1);
            List<NcclException> stalls = new CopyOnWriteArrayList<>();
            Thread caller = Thread.ofPlatform().name("inline-caller").start(() -> {
                if (s.enterIfIdle(stalls::add)) {
                    try {
                        entered.countDown();
                        release.await(50, TimeUnit.SECONDS); // stands for a plugin call that never returns
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        s.exitInline();
                    }
                }
            });
            assertTrue(entered.await(10, TimeUnit.SECONDS));
            long t0 = System.nanoTime();
            NcclException sync = assertThrows(NcclException.class, s::synchronize);
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(Result.TIMEOUT, sync.result(), sync.getMessage());
            long bound = (OP_TIMEOUT_NANOS + HostStream.GRACE_NANOS) / 1_000_000;
            assertTrue(tookMs >= bound - 50 && tookMs < bound + 3_000, "synchronize gave up after " + tookMs + " ms");
            assertEquals(List.of(sync), stalls, "the inline launch's listener hears it");
            assertTrue(sync.getMessage().contains("thread " + caller.getName() + ", running it, is at")
                    && sync.getMessage().contains("HostStreamTest"), "it shows where the caller is stuck: " + sync.getMessage());
            release.countDown();
            joinQuietly(caller);
            assertTrue(s.query(), "its exit counts it finished");
            s.synchronize();
            assertTrue(s.stop(5_000));
        });
    }

    @Test
    void anErrorInALaunchEndsTheThreadPropagatesAndFailsWaiters() throws Exception {
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        AtomicReference<Throwable> uncaught = new AtomicReference<>();
        CountDownLatch seen = new CountDownLatch(1);
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            uncaught.set(e);
            seen.countDown();
        });
        try {
            HostStream s = new HostStream(OP_TIMEOUT_NANOS);
            StackOverflowError boom = new StackOverflowError("test overflow");
            CountDownLatch go = new CountDownLatch(1);
            CountDownLatch running = new CountDownLatch(1);
            s.submit(() -> {
                running.countDown();
                awaitQuietly(go);
                throw boom;
            });
            HostCompletion c = new HostCompletion(s);
            s.submit(c::complete); // queued behind the failing launch: it never runs
            // The stream thread runs the failing launch (a waiter would otherwise run it itself
            // when it came first, and the Error would be the waiter's).
            assertTrue(running.await(10, TimeUnit.SECONDS));
            go.countDown();
            NcclException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                    () -> assertThrows(NcclException.class, s::synchronize));
            assertEquals(Result.INTERNAL_ERROR, e.result(), e.getMessage());
            assertTrue(e.getMessage().contains("test overflow"), e.getMessage());
            assertEquals(Result.INTERNAL_ERROR, assertTimeoutPreemptively(Duration.ofSeconds(10),
                    () -> assertThrows(NcclException.class, c::await)).result());
            assertTrue(seen.await(5, TimeUnit.SECONDS), "the Error reached the thread's uncaught handler");
            assertSame(boom, uncaught.get());
            assertEquals(Boolean.FALSE, ProcessResources.awaitEqual(Boolean.FALSE,
                    () -> ProcessResources.ncclThreads().contains(s.toString()), 5_000));
            assertEquals(Result.INVALID_USAGE, assertThrows(NcclException.class, () -> s.submit(() -> { })).result());
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }

    private static void joinQuietly(Thread t) {
        try {
            t.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
