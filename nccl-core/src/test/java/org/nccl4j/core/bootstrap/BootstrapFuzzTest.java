package org.nccl4j.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nccl4j.core.bootstrap.BootstrapHarness.LO;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.core.wait.Deadline;
import org.nccl4j.net.spi.auth.ConnectionAuth;
import org.nccl4j.net.spi.testkit.WireFuzz;

/**
 * Hostile input on the bootstrap ports: thousands of generated connections (random bytes,
 * mutated, cut short, oversized length fields, replayed and run-together real messages, and
 * slow-loris clients that hold a connection open) at the root while ranks check in, and at a
 * rank's listener while it receives real messages. Nothing may crash, hang, leak threads or grow
 * without bound; with a key every stranger is refused and the ranks complete; without one the
 * ranks complete or fail with an error. {@code -Dnccl4j.fuzz.inputs=N} sets the inputs per port
 * (the CI sample: 600), {@code -Dnccl4j.fuzz.seed=S} replays a run (its seed is printed).
 */
class BootstrapFuzzTest {
    private static final Duration LIMIT = Duration.ofMinutes(10);
    private static final ConnectionAuth KEY = ConnectionAuth.of("0123456789abcdef-fuzz-key", null);
    private static final int INPUTS = WireFuzz.inputsPerPort(600);
    private static final int LORIS = 20;

    @Test
    void theRootWithAKeyRefusesEveryInputAndTheRanksComplete() {
        assertTimeoutPreemptively(LIMIT, () -> fuzzRoot(KEY, true));
    }

    @Test
    void theRootWithoutAKeyCompletesOrFailsClearly() {
        assertTimeoutPreemptively(LIMIT, () -> fuzzRoot(null, false));
    }

    @Test
    void aRankListenerWithAKeyQueuesNoStrangerAndKeepsReceiving() {
        assertTimeoutPreemptively(LIMIT, () -> fuzzRankListener(KEY));
    }

    @Test
    void aRankListenerWithoutAKeyKeepsReceivingTheRightMessagesAndBoundsItsQueue() {
        assertTimeoutPreemptively(LIMIT, () -> fuzzRankListener(null));
    }

    private static void fuzzRoot(ConnectionAuth auth, boolean mustComplete) throws Exception {
        long seed = WireFuzz.seed();
        System.out.println("BootstrapFuzzTest root seed " + seed + " inputs " + INPUTS + " auth " + (auth != null));
        long nonce = BootstrapId.newNonce();
        long heap = usedHeap();
        Set<Thread> threadsBefore = bootstrapThreads();
        try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce, 500, auth)) {
            InetSocketAddress fake = new InetSocketAddress(LO, 9);
            List<byte[]> seeds = List.of(
                    Wire.headerAndFrame(nonce, Wire.KIND_CHECKIN, 1, 0, new Wire.CheckIn(3, 60_000, fake, fake).encode()).array(),
                    Wire.headerAndFrame(nonce, Wire.KIND_CHECKIN, 7, 0, new Wire.CheckIn(8, 5, fake, fake).encode()).array(),
                    Wire.headerAndFrame(nonce ^ 1, Wire.KIND_CHECKIN, 0, 0, new Wire.CheckIn(3, 1, fake, fake).encode()).array(),
                    Wire.headerAndFrame(nonce, Wire.KIND_P2P, 1, 5, new byte[] {1, 2, 3}).array(),
                    Wire.header(nonce, Wire.KIND_RING, 2, 0).array());
            List<Socket> loris = slowLoris(root.address());
            strike(root.address(), new WireFuzz(seed, seeds).next(INPUTS));
            BootstrapId id = BootstrapHarness.idFor(root, nonce);
            List<BootstrapHarness.Outcome<Bootstrap>> out = BootstrapHarness.parallel(3,
                    r -> Bootstrap.init(id, r, 3, LO, Deadline.afterMillis(8_000), null, 2_000, 10_000, auth));
            closeAll(loris);
            try {
                System.out.println("BootstrapFuzzTest root: " + out.stream().map(o -> o.error() == null ? "completed"
                        : o.error().getMessage()).toList());
                if (mustComplete || out.stream().allMatch(o -> o.error() == null)) {
                    List<BootstrapHarness.Outcome<byte[]>> all = BootstrapHarness.parallel(3,
                            r -> out.get(r).get().allGather(new byte[] {(byte) r}, Deadline.afterMillis(10_000)));
                    for (int r = 0; r < 3; r++) {
                        assertArrayEquals(new byte[] {0, 1, 2}, all.get(r).get(), "rank " + r + " (seed " + seed + ")");
                    }
                } else {
                    // A replayed or mutated check-in cannot be told from a rank's without a key:
                    // then every rank ends with an error, none waits past its deadline.
                    out.forEach(o -> assertTrue(o.error() == null || o.error() instanceof NcclException,
                            "rank " + o.rank() + " (seed " + seed + "): " + o.error()));
                }
            } finally {
                out.stream().filter(o -> o.error() == null).forEach(o -> o.value().close());
            }
        }
        assertBounded(heap, threadsBefore);
    }

    private static void fuzzRankListener(ConnectionAuth auth) throws Exception {
        long seed = WireFuzz.seed();
        System.out.println("BootstrapFuzzTest rank listener seed " + seed + " inputs " + INPUTS + " auth " + (auth != null));
        long nonce = BootstrapId.newNonce();
        long heap = usedHeap();
        Set<Thread> threadsBefore = bootstrapThreads();
        try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce, 10_000, auth)) {
            BootstrapId id = BootstrapHarness.idFor(root, nonce);
            List<BootstrapHarness.Outcome<Bootstrap>> out = BootstrapHarness.parallel(2,
                    r -> Bootstrap.init(id, r, 2, LO, Deadline.afterMillis(20_000), null, 20_000, 500, auth));
            Bootstrap b0 = out.get(0).get();
            Bootstrap b1 = out.get(1).get();
            try {
                List<byte[]> seeds = List.of(
                        Wire.headerAndFrame(nonce, Wire.KIND_P2P, 1, 5, new byte[] {6, 6, 6}).array(),
                        Wire.headerAndFrame(nonce, Wire.KIND_P2P, 1, 5, new byte[0]).array(),
                        Wire.headerAndFrame(nonce, Wire.KIND_P2P, 0, 9, new byte[100]).array(),
                        Wire.header(nonce, Wire.KIND_RING, 1, 0).array(),
                        Wire.headerAndFrame(nonce ^ 7, Wire.KIND_P2P, 1, 5, new byte[] {1}).array(),
                        Wire.headerAndFrame(nonce, Wire.KIND_ROOT_REPLY, -1, 0, new byte[] {0}).array());
                // Real traffic meanwhile: rank 1 sends, rank 0 receives (and so polls its listener).
                AtomicBoolean stop = new AtomicBoolean();
                FutureTask<Integer> traffic = BootstrapHarness.async("traffic", () -> {
                    int i = 0;
                    for (; !stop.get() || i < 50; i++) {
                        byte[] payload = ByteBuffer.allocate(12).putInt(i).putLong(seed).array();
                        b1.send(0, 1_000_000 + i, payload, Deadline.afterMillis(20_000));
                        assertArrayEquals(payload, b0.recv(1, 1_000_000 + i, Deadline.afterMillis(20_000)),
                                "message " + i + " (seed " + seed + ")");
                    }
                    return i;
                });
                List<Socket> loris = slowLoris(b0.listenAddress());
                strike(b0.listenAddress(), new WireFuzz(seed, seeds).next(INPUTS));
                stop.set(true);
                int delivered = traffic.get();
                closeAll(loris);
                assertTrue(delivered >= 50, "real messages delivered: " + delivered);
                int queued = b0.unexpectedCount();
                if (auth != null) {
                    assertEquals(0, queued, "strangers queued as messages (seed " + seed + ")");
                } else {
                    assertTrue(queued <= Bootstrap.MAX_UNEXPECTED, queued + " queued (seed " + seed + ")");
                }
                // Still a working bootstrap after the storm.
                List<BootstrapHarness.Outcome<byte[]>> all = BootstrapHarness.parallel(2,
                        r -> (r == 0 ? b0 : b1).allGather(new byte[] {(byte) (4 + r)}, Deadline.afterMillis(10_000)));
                assertArrayEquals(new byte[] {4, 5}, all.get(0).get());
                assertArrayEquals(new byte[] {4, 5}, all.get(1).get());
            } finally {
                out.forEach(o -> o.value().close());
            }
        }
        assertBounded(heap, threadsBefore);
    }

    /** Connections that send one byte and hold still: each must be dropped at the handshake window. */
    private static List<Socket> slowLoris(InetSocketAddress at) throws IOException {
        List<Socket> held = new ArrayList<>();
        for (int i = 0; i < LORIS; i++) {
            Socket s = new Socket();
            s.connect(at, 2000);
            s.getOutputStream().write('N');
            held.add(s);
        }
        return held;
    }

    /** One connection per input: writes it and closes, mostly with a reset (no TIME_WAIT here). */
    private static void strike(InetSocketAddress at, List<byte[]> inputs) throws IOException {
        int i = 0;
        for (byte[] in : inputs) {
            try (Socket s = new Socket()) {
                s.connect(at, 2000);
                if (i++ % 10 != 0) {
                    s.setSoLinger(true, 0);
                }
                s.getOutputStream().write(in);
            } catch (IOException e) {
                // The listener closed it first: as good as refused.
            }
        }
    }

    private static void closeAll(List<Socket> sockets) {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // Closing a test client.
            }
        }
    }

    private static long usedHeap() {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    private static Set<Thread> bootstrapThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("nccl4j-bootstrap")).collect(Collectors.toSet());
    }

    /** This run's bootstrap threads, those not alive before it (an earlier test's may still be ending). */
    private static List<String> startedSince(Set<Thread> before) {
        return bootstrapThreads().stream().filter(t -> !before.contains(t)).map(Thread::getName).sorted().toList();
    }

    /** Memory back near where it was, and no bootstrap thread of this run left behind. */
    private static void assertBounded(long heapBefore, Set<Thread> threadsBefore) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!startedSince(threadsBefore).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(List.of(), startedSince(threadsBefore), "bootstrap threads left running");
        // The least of a few collections a moment apart: what other threads of this JVM (earlier
        // tests' pools, the JIT) allocate meanwhile is not this run's (CI once saw 68 MiB at one look).
        long grown = usedHeap() - heapBefore;
        for (int i = 0; i < 5 && grown >= 64L << 20; i++) {
            Thread.sleep(200);
            grown = Math.min(grown, usedHeap() - heapBefore);
        }
        assertTrue(grown < 64L << 20, "heap grew by " + (grown >> 20) + " MiB");
    }
}
