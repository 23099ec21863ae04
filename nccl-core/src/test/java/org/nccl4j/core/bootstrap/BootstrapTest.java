package org.nccl4j.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nccl4j.core.bootstrap.BootstrapHarness.LO;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nccl4j.NcclException;
import org.nccl4j.NcclUsageException;
import org.nccl4j.Result;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.Deadline;

/** Bootstrap with well-behaved ranks (threads of this JVM, real sockets on 127.0.0.1). */
class BootstrapTest {
    private static final Duration LIMIT = Duration.ofSeconds(10);

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void initAllGatherSendRecvBarrier(int n) {
        assertTimeoutPreemptively(LIMIT, () -> {
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                List<BootstrapHarness.Outcome<Boolean>> out = BootstrapHarness.parallel(n, r -> {
                    Deadline dl = Deadline.afterMillis(8000);
                    try (Bootstrap b = Bootstrap.init(id, r, n, LO, dl, new AbortFlag())) {
                        exercise(b, dl);
                    }
                    return true;
                });
                out.forEach(BootstrapHarness.Outcome::get);
                assertTrue(root.awaitTermination(Duration.ofSeconds(2)), "root thread ends once every rank has its answer");
            }
        });
    }

    private static void exercise(Bootstrap b, Deadline dl) {
        int r = b.rank();
        int n = b.nranks();
        int next = (r + 1) % n;
        int prev = (r - 1 + n) % n;

        byte[] all = b.allGather(new byte[] {(byte) r, (byte) (3 * r), 7, (byte) n}, dl);
        assertEquals(4 * n, all.length);
        for (int q = 0; q < n; q++) {
            assertArrayEquals(new byte[] {(byte) q, (byte) (3 * q), 7, (byte) n}, Arrays.copyOfRange(all, 4 * q, 4 * q + 4));
        }
        assertEquals(0, b.allGather(new byte[0], dl).length);

        // Sent as 22 then 11, received as 11 then 22: the tag-22 message waits in the unexpected queue.
        b.send(next, 22, text(r + "->" + next + " tag 22"), dl);
        b.send(next, 11, text(r + "->" + next + " tag 11"), dl);
        assertEquals(prev + "->" + r + " tag 11", new String(b.recv(prev, 11, dl), StandardCharsets.UTF_8));
        assertEquals(prev + "->" + r + " tag 22", new String(b.recv(prev, 22, dl), StandardCharsets.UTF_8));

        // Every rank sends to every rank with the same tag; receive in reverse order of rank.
        for (int q = 0; q < n; q++) {
            b.send(q, 5, new byte[] {(byte) r, (byte) q}, dl);
        }
        for (int q = n - 1; q >= 0; q--) {
            assertArrayEquals(new byte[] {(byte) q, (byte) r}, b.recv(q, 5, dl));
        }
        b.send(r, 6, new byte[0], dl); // to itself, empty
        assertEquals(0, b.recv(r, 6, dl).length);

        int[] everyone = IntStream.range(0, n).toArray();
        b.barrier(everyone, 99, dl);
        int[] evens = IntStream.range(0, n).filter(q -> q % 2 == 0).toArray();
        if (r % 2 == 0) {
            b.barrier(evens, 100, dl);
        }
        byte[] again = b.allGather(new byte[] {(byte) (r + 100)}, dl);
        for (int q = 0; q < n; q++) {
            assertEquals((byte) (q + 100), again[q]);
        }
        b.barrier(everyone, 101, dl);
    }

    @Test
    void ipv6Loopback() {
        java.net.InetAddress v6 = java.net.InetAddress.getLoopbackAddress();
        try (var probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("::1"))) {
            v6 = probe.getInetAddress();
        } catch (java.io.IOException e) {
            org.junit.jupiter.api.Assumptions.abort("no IPv6 loopback here: " + e);
        }
        java.net.InetAddress local = v6;
        assertTimeoutPreemptively(LIMIT, () -> {
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(new java.net.InetSocketAddress(local, 0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                assertTrue(id.root().getAddress() instanceof java.net.Inet6Address);
                List<BootstrapHarness.Outcome<Boolean>> out = BootstrapHarness.parallel(3, r -> {
                    Deadline dl = Deadline.afterMillis(8000);
                    try (Bootstrap b = Bootstrap.init(id, r, 3, local, dl, null)) {
                        exercise(b, dl);
                    }
                    return true;
                });
                out.forEach(BootstrapHarness.Outcome::get);
            }
        });
    }

    @Test
    void moreThan128RanksAreStaggered() {
        assertTimeoutPreemptively(LIMIT, () -> {
            int n = 130;
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                long start = System.nanoTime();
                List<BootstrapHarness.Outcome<Boolean>> out = BootstrapHarness.parallel(n, r -> {
                    Deadline dl = Deadline.afterMillis(8000);
                    try (Bootstrap b = Bootstrap.init(id, r, n, LO, dl, null)) {
                        byte[] all = b.allGather(new byte[] {(byte) r}, dl);
                        for (int q = 0; q < n; q++) {
                            assertEquals((byte) q, all[q]);
                        }
                        b.barrier(IntStream.range(0, n).toArray(), 1, dl);
                    }
                    return true;
                });
                out.forEach(BootstrapHarness.Outcome::get);
                long ms = (System.nanoTime() - start) / 1_000_000;
                assertTrue(ms >= n - 1, "rank " + (n - 1) + " waited its turn (" + ms + " ms)");
            }
        });
    }

    @Test
    void largePayloads() {
        assertTimeoutPreemptively(LIMIT, () -> {
            int n = 3;
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                List<BootstrapHarness.Outcome<Boolean>> out = BootstrapHarness.parallel(n, r -> {
                    Deadline dl = Deadline.afterMillis(8000);
                    try (Bootstrap b = Bootstrap.init(id, r, n, LO, dl, null)) {
                        int len = 700_000; // larger than socket buffers: sends and receives must overlap
                        byte[] mine = new byte[len];
                        Arrays.fill(mine, (byte) (r + 1));
                        byte[] all = b.allGather(mine, dl);
                        for (int q = 0; q < n; q++) {
                            int qq = q;
                            assertTrue(IntStream.range(q * len, (q + 1) * len).allMatch(i -> all[i] == (byte) (qq + 1)));
                        }
                        byte[] big = new byte[3_000_000];
                        Arrays.fill(big, (byte) r);
                        if (r == 0) {
                            b.send(1, 1, big, dl);
                        } else if (r == 1) {
                            byte[] got = b.recv(0, 1, dl);
                            assertEquals(big.length, got.length);
                            assertTrue(IntStream.range(0, got.length).allMatch(i -> got[i] == 0));
                        }
                        b.barrier(new int[] {0, 1, 2}, 3, dl);
                    }
                    return true;
                });
                out.forEach(BootstrapHarness.Outcome::get);
            }
        });
    }

    @Test
    void barrierOverSubsets() {
        assertTimeoutPreemptively(LIMIT, () -> {
            int n = 5;
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                List<BootstrapHarness.Outcome<Boolean>> out = BootstrapHarness.parallel(n, r -> {
                    Deadline dl = Deadline.afterMillis(8000);
                    try (Bootstrap b = Bootstrap.init(id, r, n, LO, dl, null)) {
                        int[] everyone = {0, 1, 2, 3, 4};
                        for (int i = 0; i < 3; i++) {
                            b.barrier(everyone, 0x77, dl); // the same tag again and again
                        }
                        if (r % 2 == 0) {
                            b.barrier(new int[] {4, 0, 2}, 0x78, dl);
                        } else {
                            b.barrier(new int[] {r}, 0x79, dl); // alone: returns at once
                        }
                        b.barrier(everyone, 0x7a, dl);
                        NcclException e = assertThrows(NcclUsageException.class,
                                () -> b.barrier(new int[] {(r + 1) % n}, 1, dl));
                        assertTrue(e.getMessage().contains("do not include this rank"), e.getMessage());
                    }
                    return true;
                });
                out.forEach(BootstrapHarness.Outcome::get);
            }
        });
    }

    @Test
    void fixedPortRootLikeNcclCommId() {
        assertTimeoutPreemptively(LIMIT, () -> {
            int n = 3;
            int port = BootstrapHarness.freePort();
            String commId = "127.0.0.1:" + port;
            // Ranks 1 and 2 start before the root exists: their connects are refused and retried.
            List<FutureTask<Bootstrap>> early = IntStream.range(1, n).mapToObj(r -> BootstrapHarness.async("early-" + r,
                    () -> Bootstrap.init(BootstrapId.fromCommId(commId), r, n, LO, Deadline.afterMillis(8000), null))).toList();
            Thread.sleep(300);
            BootstrapId id0 = BootstrapId.fromCommId(commId);
            assertTrue(id0.fromCommId());
            try (BootstrapRoot root = BootstrapRoot.start(id0.root(), id0.nonce())) {
                assertEquals(port, root.address().getPort());
                Bootstrap b0 = Bootstrap.init(id0, 0, n, LO, Deadline.afterMillis(8000), null);
                Bootstrap b1 = early.get(0).get();
                Bootstrap b2 = early.get(1).get();
                List<FutureTask<byte[]>> gathers = List.of(b0, b1, b2).stream().map(b -> BootstrapHarness.async("ag",
                        () -> b.allGather(new byte[] {(byte) b.rank()}, Deadline.afterMillis(5000)))).toList();
                for (FutureTask<byte[]> g : gathers) {
                    assertArrayEquals(new byte[] {0, 1, 2}, g.get());
                }
                b0.close();
                b1.close();
                b2.close();
            }
            // The port can be used again at once (SO_REUSEADDR), e.g. by the next job.
            try (BootstrapRoot again = BootstrapRoot.start(BootstrapHarness.loopback(port), 1L)) {
                assertEquals(port, again.address().getPort());
            }
        });
    }

    @Test
    void closeWarnsAboutUnreceivedMessagesAndIsIdempotent() {
        assertTimeoutPreemptively(LIMIT, () -> {
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                List<BootstrapHarness.Outcome<Bootstrap>> out = BootstrapHarness.parallel(2,
                        r -> Bootstrap.init(id, r, 2, LO, Deadline.afterMillis(8000), null));
                Bootstrap b0 = out.get(0).get();
                Bootstrap b1 = out.get(1).get();
                b1.send(0, 9, new byte[] {1}, Deadline.afterMillis(2000));
                b0.close(); // logs "Unexpected connections are not empty"
                b0.close();
                b0.abort();
                NcclException e = assertThrows(NcclException.class, () -> b0.recv(1, 9, Deadline.afterMillis(1000)));
                assertEquals(Result.INVALID_USAGE, e.result());
                b1.abort();
                b1.close();
            }
        });
    }

    @Test
    void refusesBadArguments() {
        assertTimeoutPreemptively(LIMIT, () -> {
            BootstrapId id = new BootstrapId(BootstrapHarness.loopback(1), 1L, false);
            Deadline dl = Deadline.afterMillis(1000);
            assertThrows(NcclUsageException.class, () -> Bootstrap.init(null, 0, 1, LO, dl, null));
            assertThrows(NcclUsageException.class, () -> Bootstrap.init(id, 0, 0, LO, dl, null));
            assertThrows(NcclUsageException.class, () -> Bootstrap.init(id, 2, 2, LO, dl, null));
            assertThrows(NcclUsageException.class, () -> Bootstrap.init(id, -1, 2, LO, dl, null));
            assertThrows(NcclUsageException.class,
                    () -> Bootstrap.init(id, 0, 1, java.net.InetAddress.getByName("0.0.0.0"), dl, null));
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce);
                 Bootstrap b = Bootstrap.init(BootstrapHarness.idFor(root, nonce), 0, 1, LO, dl, null)) {
                assertThrows(NcclUsageException.class, () -> b.send(1, 0, new byte[0], dl));
                assertThrows(NcclUsageException.class, () -> b.recv(-1, 0, dl));
                assertThrows(NcclUsageException.class, () -> b.send(0, 0, null, dl));
                assertThrows(NcclUsageException.class, () -> b.allGather(null, dl));
                assertThrows(NcclUsageException.class, () -> b.barrier(null, 0, dl));
                assertThrows(NcclUsageException.class, () -> b.barrier(new int[] {0, 5}, 0, dl));
                assertEquals(b.listenAddress(), b.peerAddress(0));
                assertFalse(b.toString().isEmpty());
            }
        });
    }
}
