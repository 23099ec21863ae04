package org.nccl4j.core.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.wait.AbortFlag;

/**
 * A proxy failure is reported with its true kind and aborts the communicator; kernels that help
 * run the proxy's rounds one at a time with its thread, never after it stopped.
 */
class ProxyTest {
    /** Records who ran its rounds and whether two ever overlapped or one came after close. */
    private static final class Recording implements ProxyTask {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger afterClose = new AtomicInteger();
        final Set<String> threads = ConcurrentHashMap.newKeySet();
        volatile boolean closed;

        @Override
        public boolean progress() {
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            if (closed) {
                afterClose.incrementAndGet();
            }
            threads.add(Thread.currentThread().getName());
            long end = System.nanoTime() + 2_000; // a round that takes a while, as a system call does
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            inside.decrementAndGet();
            return false;
        }

        @Override
        public boolean inFlight() {
            return true;
        }

        @Override
        public void close() {
            if (inside.get() != 0) {
                overlaps.incrementAndGet();
            }
            closed = true;
        }
    }

    @Test
    void helpersRunRoundsOneAtATimeAndNeverAfterStop() throws Exception {
        AbortFlag abort = new AbortFlag();
        CompletableFuture<NcclException> reported = new CompletableFuture<>();
        Proxy proxy = new Proxy(0, abort, reported::complete, true);
        Recording task = new Recording();
        proxy.add(task);
        AtomicBoolean stopHelping = new AtomicBoolean();
        Thread[] helpers = new Thread[2];
        for (int i = 0; i < helpers.length; i++) {
            helpers[i] = Thread.ofPlatform().name("kernel " + i).start(() -> {
                while (!stopHelping.get()) {
                    proxy.help();
                }
            });
        }
        Thread.sleep(300);
        assertTrue(proxy.stop(), "the proxy stopped while kernels kept helping");
        Thread.sleep(50);
        stopHelping.set(true);
        for (Thread h : helpers) {
            h.join(5_000);
        }
        assertEquals(0, task.overlaps.get(), "two rounds ran at once, or close ran inside one");
        assertEquals(0, task.afterClose.get(), "a round ran after the task was closed");
        assertTrue(task.closed);
        assertTrue(task.threads.contains("kernel 0") || task.threads.contains("kernel 1"), task.threads.toString());
        assertFalse(reported.isDone(), "nothing failed");
    }

    /**
     * A send posted by a kernel: owed until its third round (handed to the net, then in flight,
     * then complete), by whichever thread; counts the rounds the proxy thread ran.
     */
    private static final class Owing implements ProxyTask {
        final AtomicInteger threadRounds = new AtomicInteger();
        volatile boolean owes;
        volatile int rounds;
        volatile String movedBy;

        @Override
        public boolean progress() {
            if (Thread.currentThread().getName().startsWith("NCCLproxy")) {
                threadRounds.incrementAndGet();
            }
            if (!owes) {
                return false;
            }
            if (++rounds == 3) {
                movedBy = Thread.currentThread().getName();
                owes = false;
            }
            return true;
        }

        @Override
        public boolean owes() {
            return owes;
        }

        /** Waits, at most 5 s, until the send is complete. */
        void awaitMoved() throws InterruptedException {
            long end = System.nanoTime() + 5_000_000_000L;
            while (owes && System.nanoTime() < end) {
                Thread.sleep(1);
            }
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aPostWhileKernelsHelpIsLeftToThemAndTheLastToStopHandsItToTheThread() throws Exception {
        AbortFlag abort = new AbortFlag();
        CompletableFuture<NcclException> reported = new CompletableFuture<>();
        // Parks of a minute while helped: only a wake-up can make the thread run a round in the test.
        Proxy proxy = new Proxy(0, abort, reported::complete, true, 60_000_000_000L);
        Owing task = new Owing();
        proxy.add(task);
        proxy.helping(true);
        proxy.helping(true);
        Thread thread = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("NCCLproxy 0")).findFirst().orElseThrow();
        long end = System.nanoTime() + 5_000_000_000L;
        while (thread.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        Thread.sleep(20);
        int rounds = task.threadRounds.get();
        task.owes = true;
        proxy.posted();
        Thread.sleep(200);
        assertEquals(rounds, task.threadRounds.get(), "a post woke the thread while two kernels helped");
        // Each helper that stops runs a round itself (two of the three the send needs).
        proxy.helping(false);
        Thread.sleep(200);
        assertEquals(rounds, task.threadRounds.get(), "the thread woke while a kernel still helped");
        assertTrue(task.owes);
        proxy.helping(false);
        task.awaitMoved();
        assertEquals("NCCLproxy 0", task.movedBy, "the last helper to stop left the owed send to the thread");
        assertTrue(proxy.stop());
        assertFalse(reported.isDone(), "nothing failed");
    }

    @Test
    void withACoreOfItsOwnTheThreadMovesAPostWhileKernelsHelp() throws Exception {
        AbortFlag abort = new AbortFlag();
        CompletableFuture<NcclException> reported = new CompletableFuture<>();
        Proxy proxy = new Proxy(0, abort, reported::complete, false, 60_000_000_000L);
        Owing task = new Owing();
        proxy.add(task);
        proxy.helping(true);
        Thread.sleep(20);
        task.owes = true;
        proxy.posted();
        task.awaitMoved();
        assertEquals("NCCLproxy 0", task.movedBy, "the thread moved the post while a kernel helped");
        proxy.helping(false);
        assertTrue(proxy.stop());
        assertFalse(reported.isDone(), "nothing failed");
    }

    /** Fails with the cause on its first round; any later round is the misuse a released request causes. */
    private static final class FailsOnce implements ProxyTask {
        final NcclException cause = NcclException.of(Result.REMOTE_ERROR, "peer 1 closed the connection", null);
        final AtomicInteger rounds = new AtomicInteger();

        @Override
        public boolean progress() {
            if (rounds.getAndIncrement() == 0) {
                throw cause;
            }
            throw NcclException.of(Result.INTERNAL_ERROR, "request tested after it completed", null);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void theFirstFailureIsReportedBeforeAnyOtherRoundRuns() throws Exception {
        for (int trial = 0; trial < 200; trial++) {
            AbortFlag abort = new AbortFlag();
            List<NcclException> reported = new CopyOnWriteArrayList<>();
            Proxy proxy = new Proxy(0, abort, reported::add, true);
            FailsOnce task = new FailsOnce();
            AtomicBoolean stopHelping = new AtomicBoolean();
            Thread helper = Thread.ofPlatform().start(() -> {
                while (!stopHelping.get()) {
                    proxy.help();
                }
            });
            proxy.add(task);
            long end = System.nanoTime() + 5_000_000_000L;
            while (!abort.isSet() && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            Thread.sleep(1);
            stopHelping.set(true);
            helper.join(5_000);
            assertTrue(proxy.stop());
            assertEquals(1, task.rounds.get(), "trial " + trial + ": a round ran after the failure: " + reported);
            assertEquals(List.of(task.cause), reported, "trial " + trial);
        }
    }

    @Test
    void aFailureInAHelpedRoundIsReportedAndAborts() throws Exception {
        AbortFlag abort = new AbortFlag();
        CompletableFuture<NcclException> reported = new CompletableFuture<>();
        Proxy proxy = new Proxy(0, abort, reported::complete, true);
        NcclException cause = NcclException.of(Result.REMOTE_ERROR, "peer 1 closed the connection", null);
        proxy.add(new Throwing(cause));
        proxy.help();
        assertEquals(cause, reported.get(5, TimeUnit.SECONDS));
        assertTrue(abort.isSet());
        assertTrue(proxy.stop());
    }
    /** A task that fails on its first progress, as a buggy plugin call would. */
    private record Throwing(Throwable t) implements ProxyTask {
        @Override
        public boolean progress() throws Exception {
            if (t instanceof Exception e) {
                throw e;
            }
            throw (Error) t;
        }

        @Override
        public void close() {
        }
    }

    private static NcclException failWith(Throwable t, AbortFlag abort) throws Exception {
        CompletableFuture<NcclException> reported = new CompletableFuture<>();
        Proxy proxy = new Proxy(0, abort, reported::complete, true);
        proxy.add(new Throwing(t));
        NcclException e = reported.get(5, TimeUnit.SECONDS);
        long end = System.nanoTime() + 5_000_000_000L;
        while (proxy.isAlive() && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertFalse(proxy.isAlive(), "the proxy thread ended");
        assertTrue(proxy.stop());
        return e;
    }

    @Test
    void aLocalBugIsAnInternalErrorNotAPeerExiting() throws Exception {
        AbortFlag abort = new AbortFlag();
        NcclException e = failWith(new NullPointerException("bug in a task"), abort);
        assertEquals(Result.INTERNAL_ERROR, e.result(), e.getMessage());
        assertTrue(e.getMessage().contains("bug in a task"), e.getMessage());
        assertTrue(abort.isSet(), "the communicator is aborted");
    }

    @Test
    void aNetFailureKeepsItsKind() throws Exception {
        AbortFlag abort = new AbortFlag();
        NcclException cause = NcclException.of(Result.REMOTE_ERROR, "peer 1 closed the connection", null);
        assertEquals(cause, failWith(cause, abort));
        assertTrue(abort.isSet());
    }

    @Test
    void anErrorIsReportedAndAbortsBeforeItEndsTheThread() throws Exception {
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, x) -> { }); // the Error is expected to escape
        try {
            AbortFlag abort = new AbortFlag();
            NcclException e = failWith(new OutOfMemoryError("test oom"), abort);
            assertEquals(Result.INTERNAL_ERROR, e.result());
            assertNotNull(e.getCause());
            assertTrue(abort.isSet());
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }
}
