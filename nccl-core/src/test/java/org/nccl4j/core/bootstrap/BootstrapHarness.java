package org.nccl4j.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.wait.Deadline;

/** Runs ranks as threads and checks their outcomes. */
final class BootstrapHarness {
    static final InetAddress LO = InetAddress.getLoopbackAddress();

    private BootstrapHarness() {
    }

    /** A rank's body. */
    @FunctionalInterface
    interface RankBody<T> {
        T run(int rank) throws Exception;
    }

    /** What one rank's body returned or threw. */
    record Outcome<T>(int rank, T value, Throwable error) {
        T get() {
            if (error != null) {
                throw new AssertionError("rank " + rank + " failed: " + error, error);
            }
            return value;
        }

        NcclException failure() {
            if (error == null) {
                fail("rank " + rank + " succeeded but was expected to fail");
            }
            return assertInstanceOf(NcclException.class, error, () -> "rank " + rank + " threw " + error);
        }
    }

    /**
     * Runs {@code body} for ranks 0..n-1, each in its own daemon thread, and waits for all.
     *
     * @param n    number of threads
     * @param body the body
     * @return each rank's outcome, in rank order
     */
    static <T> List<Outcome<T>> parallel(int n, RankBody<T> body) throws InterruptedException {
        List<FutureTask<T>> tasks = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            int rank = r;
            FutureTask<T> t = new FutureTask<>(() -> body.run(rank));
            tasks.add(t);
            Thread.ofPlatform().daemon().name("test-rank-" + r).start(t);
        }
        List<Outcome<T>> out = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            out.add(await(r, tasks.get(r)));
        }
        return out;
    }

    static <T> Outcome<T> await(int rank, Future<T> f) throws InterruptedException {
        try {
            return new Outcome<>(rank, f.get(20, TimeUnit.SECONDS), null);
        } catch (ExecutionException e) {
            return new Outcome<>(rank, null, e.getCause());
        } catch (TimeoutException e) {
            f.cancel(true);
            return new Outcome<>(rank, null, new AssertionError("rank " + rank + " did not finish"));
        }
    }

    /** Starts a task in a daemon thread. */
    static <T> FutureTask<T> async(String name, java.util.concurrent.Callable<T> c) {
        FutureTask<T> t = new FutureTask<>(c);
        Thread.ofPlatform().daemon().name(name).start(t);
        return t;
    }

    static BootstrapId idFor(BootstrapRoot root, long nonce) {
        // Through the 128-byte form, as ranks in other processes would get it.
        return BootstrapId.decode(new BootstrapId(root.address(), nonce, false).toUniqueId());
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, LO)) {
            return s.getLocalPort();
        }
    }

    /**
     * A loopback port that refuses connections and stays so: bound by a socket that never
     * listens, so no other test can take it between choosing and connecting (a port of a closed
     * {@link ServerSocket} can be).
     */
    static java.net.Socket refusingPort() throws IOException {
        java.net.Socket s = new java.net.Socket();
        s.bind(new InetSocketAddress(LO, 0));
        return s;
    }

    static InetSocketAddress loopback(int port) {
        return new InetSocketAddress(LO, port);
    }

    static void assertFailure(NcclException e, Result result, String... fragments) {
        assertEquals(result, e.result(), () -> "unexpected result: " + e.getMessage());
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), () -> "message lacks \"" + f + "\": " + e.getMessage());
        }
    }

    static void closeAll(List<? extends Outcome<Bootstrap>> outcomes) {
        for (Outcome<Bootstrap> o : outcomes) {
            if (o.value() != null) {
                o.value().close();
            }
        }
    }

    /** What a test does with two ranks' bootstraps. */
    interface PairBody {
        void run(long nonce, Bootstrap b0, Bootstrap b1) throws Exception;
    }

    /** Starts a root and two ranks on loopback, runs {@code body}, then closes them all. */
    static void withTwoRanks(PairBody body) throws Exception {
        long nonce = BootstrapId.newNonce();
        try (BootstrapRoot root = BootstrapRoot.start(loopback(0), nonce)) {
            BootstrapId id = idFor(root, nonce);
            List<Outcome<Bootstrap>> out = parallel(2, r -> Bootstrap.init(id, r, 2, LO, Deadline.afterMillis(5000), null));
            Bootstrap b0 = out.get(0).get();
            Bootstrap b1 = out.get(1).get();
            try {
                body.run(nonce, b0, b1);
            } finally {
                b0.close();
                b1.close();
            }
        }
    }
}
