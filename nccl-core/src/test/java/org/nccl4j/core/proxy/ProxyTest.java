package org.nccl4j.core.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.wait.AbortFlag;

/** A proxy failure is reported with its true kind and aborts the communicator. */
class ProxyTest {
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
        Proxy proxy = new Proxy(0, abort, reported::complete);
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
