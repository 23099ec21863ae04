package org.nccl4j.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nccl4j.core.bootstrap.BootstrapHarness.LO;
import static org.nccl4j.core.bootstrap.BootstrapHarness.assertFailure;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.Deadline;

/** Bootstrap with misbehaving ranks, strangers and aborts. */
class BootstrapFaultTest {
    private static final Duration LIMIT = Duration.ofSeconds(10);

    private static NcclException thrown(FutureTask<?> task) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> task.get(5, TimeUnit.SECONDS));
        return assertInstanceOf(NcclException.class, e.getCause(), () -> "not an NcclException: " + e.getCause());
    }

    @Test
    void rankCountMismatchIsReportedToEveryRank() {
        assertTimeoutPreemptively(LIMIT, () -> {
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                int[] counts = {3, 3, 4};
                List<BootstrapHarness.Outcome<Bootstrap>> out = BootstrapHarness.parallel(3,
                        r -> Bootstrap.init(id, r, counts[r], LO, Deadline.afterMillis(5000), null));
                BootstrapHarness.closeAll(out);
                for (var o : out) {
                    NcclException e = o.failure();
                    assertFailure(e, Result.INVALID_USAGE, "mismatch in rank count: ");
                    assertTrue(e.getMessage().contains("3 vs 4") || e.getMessage().contains("4 vs 3"), e.getMessage());
                    assertTrue(e.getMessage().startsWith("INVALID_USAGE: rank " + o.rank() + " of "), e.getMessage());
                }
            }
        });
    }

    @Test
    void duplicateRankIsReportedToEveryRank() {
        assertTimeoutPreemptively(LIMIT, () -> {
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                int[] ranks = {0, 1, 1};
                List<BootstrapHarness.Outcome<Bootstrap>> out = BootstrapHarness.parallel(3,
                        i -> Bootstrap.init(id, ranks[i], 3, LO, Deadline.afterMillis(5000), null));
                BootstrapHarness.closeAll(out);
                for (var o : out) {
                    assertFailure(o.failure(), Result.INVALID_USAGE, "rank 1 of 3 checked in twice (from 127.0.0.1:",
                            " and 127.0.0.1:");
                }
            }
        });
    }

    @Test
    void missingRankMakesEveryOtherRankTimeOutNamingIt() {
        assertTimeoutPreemptively(LIMIT, () -> {
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                long start = System.nanoTime();
                List<BootstrapHarness.Outcome<Bootstrap>> out = BootstrapHarness.parallel(3,
                        r -> Bootstrap.init(id, r, 4, LO, Deadline.afterMillis(1500), null));
                long ms = (System.nanoTime() - start) / 1_000_000;
                BootstrapHarness.closeAll(out);
                for (var o : out) {
                    assertFailure(o.failure(), Result.TIMEOUT, "rank 3 of 4 never checked in within");
                }
                assertTrue(ms < 1500, "the root reports before the ranks' own deadline: " + ms + " ms");
                assertTrue(root.awaitTermination(Duration.ofSeconds(3)), "root gives up once every deadline passed");
            }
        });
    }

    @Test
    void missingRanksAreListed() {
        assertTimeoutPreemptively(LIMIT, () -> {
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                int[] present = {0, 1, 2, 4, 6, 7};
                List<BootstrapHarness.Outcome<Bootstrap>> out = BootstrapHarness.parallel(present.length,
                        i -> Bootstrap.init(id, present[i], 8, LO, Deadline.afterMillis(1000), null));
                BootstrapHarness.closeAll(out);
                for (var o : out) {
                    assertFailure(o.failure(), Result.TIMEOUT, "ranks 3, 5 of 8 never checked in within");
                }
            }
            assertEquals("0-3, 5, 7, 8", BootstrapRoot.ranges(List.of(0, 1, 2, 3, 5, 7, 8)));
        });
    }

    @Test
    void noRootAtAllTimesOut() {
        assertTimeoutPreemptively(LIMIT, () -> {
            // A root that accepts and never answers (a stranger's listener, or a hung root).
            try (var silent = new java.net.ServerSocket(0, 50, LO)) {
                BootstrapId id = new BootstrapId(BootstrapHarness.loopback(silent.getLocalPort()), 1L, false);
                NcclException e = assertThrows(NcclException.class,
                        () -> Bootstrap.init(id, 0, 2, LO, Deadline.afterMillis(700), null));
                assertFailure(e, Result.TIMEOUT, "rank 0 of 2 waiting for the bootstrap root at 127.0.0.1:");
            }
            // Nothing listens: refusals are retried for NCCL4J_CONNECT_TIMEOUT_MS, then SYSTEM_ERROR.
            try (var refusing = BootstrapHarness.refusingPort()) {
                int port = refusing.getLocalPort();
                BootstrapId id = new BootstrapId(BootstrapHarness.loopback(port), 1L, false);
                NcclException e = assertThrows(NcclException.class,
                        () -> Bootstrap.init(id, 0, 2, LO, Deadline.afterMillis(5000), null, 300, 1000));
                assertFailure(e, Result.SYSTEM_ERROR, "connecting to the bootstrap root at 127.0.0.1:" + port, "refused");
                // ... unless the deadline comes first: TIMEOUT.
                e = assertThrows(NcclException.class,
                        () -> Bootstrap.init(id, 0, 2, LO, Deadline.afterMillis(300), null, 20_000, 1000));
                assertFailure(e, Result.TIMEOUT, "connecting to the bootstrap root", "refused");
            }
        });
    }

    @Test
    void strangersAtTheRootDoNotDisturbIt() {
        assertTimeoutPreemptively(LIMIT, () -> {
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce, 500)) {
                InetSocketAddress at = root.address();
                List<Socket> strangers = new ArrayList<>();
                try {
                    Socket garbage = new Socket(LO, at.getPort());
                    garbage.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    strangers.add(garbage);
                    Socket silent = new Socket(LO, at.getPort());
                    strangers.add(silent);
                    Socket halfHeader = new Socket(LO, at.getPort());
                    halfHeader.getOutputStream().write(Wire.header(nonce, Wire.KIND_CHECKIN, 0, 0).array(), 0, 12);
                    strangers.add(halfHeader);
                    Socket otherComm = new Socket(LO, at.getPort());
                    otherComm.getOutputStream().write(Wire.headerAndFrame(nonce + 1, Wire.KIND_CHECKIN, 0, 0,
                            new byte[68]).array());
                    strangers.add(otherComm);
                    Socket huge = new Socket(LO, at.getPort());
                    ByteBuffer h = ByteBuffer.allocate(36).put(Wire.header(nonce, Wire.KIND_CHECKIN, 0, 0)).putInt(Integer.MAX_VALUE);
                    huge.getOutputStream().write(h.array());
                    strangers.add(huge);
                    Socket wrongKind = new Socket(LO, at.getPort());
                    wrongKind.getOutputStream().write(Wire.header(nonce, Wire.KIND_P2P, 0, 0).array());
                    strangers.add(wrongKind);
                    Socket badCheckIn = new Socket(LO, at.getPort());
                    badCheckIn.getOutputStream().write(Wire.headerAndFrame(nonce, Wire.KIND_CHECKIN, 0, 0, new byte[5]).array());
                    strangers.add(badCheckIn);

                    BootstrapId id = BootstrapHarness.idFor(root, nonce);
                    long start = System.nanoTime();
                    List<BootstrapHarness.Outcome<Bootstrap>> out = BootstrapHarness.parallel(3,
                            r -> Bootstrap.init(id, r, 3, LO, Deadline.afterMillis(5000), null));
                    long ms = (System.nanoTime() - start) / 1_000_000;
                    try {
                        out.forEach(BootstrapHarness.Outcome::get);
                        assertTrue(ms < 2000, "init took " + ms + " ms");
                        assertArrayEquals(new byte[] {0, 1, 2}, gather(out));
                    } finally {
                        BootstrapHarness.closeAll(out);
                    }
                    // Every stranger was hung up on: garbage at once, the silent one after the handshake window.
                    for (Socket s : strangers) {
                        assertEquals(-1, readUntilClosed(s, 2000), "root closed " + s);
                    }
                } finally {
                    for (Socket s : strangers) {
                        s.close();
                    }
                }
            }
        });
    }

    private static byte[] gather(List<BootstrapHarness.Outcome<Bootstrap>> out) throws Exception {
        List<FutureTask<byte[]>> ag = new ArrayList<>();
        for (var o : out) {
            Bootstrap b = o.get();
            ag.add(BootstrapHarness.async("ag-" + b.rank(),
                    () -> b.allGather(new byte[] {(byte) b.rank()}, Deadline.afterMillis(3000))));
        }
        byte[] first = null;
        for (FutureTask<byte[]> t : ag) {
            byte[] v = t.get(5, TimeUnit.SECONDS);
            if (first == null) {
                first = v;
            }
            assertArrayEquals(first, v);
        }
        return first;
    }

    /** @return -1 once the peer closed, or 0 if it stayed open for {@code ms} */
    private static int readUntilClosed(Socket s, int ms) throws Exception {
        s.setSoTimeout(ms);
        InputStream in = s.getInputStream();
        try {
            while (in.read() >= 0) {
                // drain
            }
            return -1;
        } catch (SocketTimeoutException e) {
            return 0;
        } catch (java.io.IOException e) {
            return -1; // reset
        }
    }

    @Test
    void strangersAtARankListenerDoNotDisturbRecv() {
        assertTimeoutPreemptively(LIMIT, () -> {
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                List<BootstrapHarness.Outcome<Bootstrap>> out = BootstrapHarness.parallel(2,
                        r -> Bootstrap.init(id, r, 2, LO, Deadline.afterMillis(5000), null));
                Bootstrap b0 = out.get(0).get();
                Bootstrap b1 = out.get(1).get();
                List<Socket> strangers = new ArrayList<>();
                try {
                    FutureTask<byte[]> recv = BootstrapHarness.async("recv", () -> b0.recv(1, 7, Deadline.afterMillis(5000)));
                    InetSocketAddress at = b0.listenAddress();
                    Socket silent = new Socket(LO, at.getPort());
                    strangers.add(silent);
                    Socket garbage = new Socket(LO, at.getPort());
                    OutputStream g = garbage.getOutputStream();
                    g.write(new byte[] {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9});
                    strangers.add(garbage);
                    Socket otherComm = new Socket(LO, at.getPort());
                    otherComm.getOutputStream().write(Wire.headerAndFrame(nonce ^ 1, Wire.KIND_P2P, 1, 7, new byte[] {9}).array());
                    strangers.add(otherComm);
                    Socket badRank = new Socket(LO, at.getPort());
                    badRank.getOutputStream().write(Wire.headerAndFrame(nonce, Wire.KIND_P2P, 99, 7, new byte[] {9}).array());
                    strangers.add(badRank);
                    Socket lateRing = new Socket(LO, at.getPort());
                    lateRing.getOutputStream().write(Wire.header(nonce, Wire.KIND_RING, 1, 0).array());
                    strangers.add(lateRing);
                    Thread.sleep(100);
                    long start = System.nanoTime();
                    b1.send(0, 7, new byte[] {42, 43}, Deadline.afterMillis(2000));
                    assertArrayEquals(new byte[] {42, 43}, recv.get(2, TimeUnit.SECONDS));
                    assertTrue((System.nanoTime() - start) / 1_000_000 < 1000, "recv was not held up by the strangers");
                    for (int i = 1; i < strangers.size(); i++) {
                        assertEquals(-1, readUntilClosed(strangers.get(i), 2000), "rank closed stranger " + i);
                    }
                    // A message with a header but a refused length fails the receive that matches it.
                    Socket huge = new Socket(LO, at.getPort());
                    strangers.add(huge);
                    huge.getOutputStream().write(ByteBuffer.allocate(36).put(Wire.header(nonce, Wire.KIND_P2P, 1, 8))
                            .putInt(-7).array());
                    NcclException e = assertThrows(NcclException.class, () -> b0.recv(1, 8, Deadline.afterMillis(2000)));
                    assertFailure(e, Result.INTERNAL_ERROR, "from rank 1", "refused");
                    // The bootstrap still works.
                    b1.send(0, 9, new byte[] {1}, Deadline.afterMillis(2000));
                    assertArrayEquals(new byte[] {1}, b0.recv(1, 9, Deadline.afterMillis(2000)));
                } finally {
                    for (Socket s : strangers) {
                        s.close();
                    }
                    b0.close();
                    b1.close();
                }
            }
        });
    }

    @Test
    void recvTimesOutNamingPeerTagAndWaitingMessages() {
        assertTimeoutPreemptively(LIMIT, () -> BootstrapHarness.withTwoRanks((nonce, b0, b1) -> {
            b1.send(0, 5, new byte[] {1}, Deadline.afterMillis(2000));
            NcclException e = assertThrows(NcclException.class, () -> b0.recv(1, 6, Deadline.afterMillis(300)));
            assertFailure(e, Result.TIMEOUT, "rank 0 of 2 waiting for a message (tag 6) from rank 1", "(1, 5)");
            assertArrayEquals(new byte[] {1}, b0.recv(1, 5, Deadline.afterMillis(1000)));
        }));
    }

    @Test
    void abortFlagDuringInitReturnsPromptly() {
        assertTimeoutPreemptively(LIMIT, () -> {
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                AbortFlag flag = new AbortFlag();
                FutureTask<Bootstrap> init = BootstrapHarness.async("init",
                        () -> Bootstrap.init(id, 0, 2, LO, Deadline.afterMillis(8000), flag));
                Thread.sleep(300);
                long start = System.nanoTime();
                flag.set("aborted by the test");
                NcclException e = thrown(init);
                long ms = (System.nanoTime() - start) / 1_000_000;
                assertTrue(ms < 1000, "abort took " + ms + " ms");
                assertFailure(e, Result.INVALID_USAGE, "aborted by the test");
            }
            // Already aborted before init: fails at once.
            AbortFlag set = new AbortFlag();
            set.set("pre-aborted");
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), 5L)) {
                NcclException e = assertThrows(NcclException.class, () -> Bootstrap.init(
                        BootstrapHarness.idFor(root, 5L), 0, 1, LO, Deadline.afterMillis(5000), set));
                assertFailure(e, Result.INVALID_USAGE, "pre-aborted");
            }
        });
    }

    @Test
    void abortDuringRecvReturnsPromptly() {
        assertTimeoutPreemptively(LIMIT, () -> {
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                AbortFlag flag0 = new AbortFlag();
                AbortFlag flag1 = new AbortFlag();
                AbortFlag[] flags = {flag0, flag1};
                List<BootstrapHarness.Outcome<Bootstrap>> out = BootstrapHarness.parallel(2,
                        r -> Bootstrap.init(id, r, 2, LO, Deadline.afterMillis(5000), flags[r]));
                Bootstrap b0 = out.get(0).get();
                Bootstrap b1 = out.get(1).get();
                try {
                    // Through Bootstrap.abort(), during an all-gather rank 0 does not join ...
                    FutureTask<byte[]> ag = BootstrapHarness.async("ag1", () -> b1.allGather(new byte[8], Deadline.afterMillis(8000)));
                    Thread.sleep(300);
                    long start = System.nanoTime();
                    b1.abort();
                    NcclException e1 = thrown(ag);
                    assertTrue((System.nanoTime() - start) / 1_000_000 < 1000);
                    assertFailure(e1, Result.INVALID_USAGE, "bootstrap aborted");
                    // ... and through the communicator's abort flag, during a receive.
                    FutureTask<byte[]> recv = BootstrapHarness.async("recv0", () -> b0.recv(1, 3, Deadline.afterMillis(8000)));
                    Thread.sleep(300);
                    start = System.nanoTime();
                    flag0.set("aborted by the test");
                    NcclException e = thrown(recv);
                    assertTrue((System.nanoTime() - start) / 1_000_000 < 1000);
                    assertFailure(e, Result.INVALID_USAGE, "aborted by the test");
                    b1.abort(); // idempotent
                } finally {
                    b0.close();
                    b1.close();
                }
            }
        });
    }

    @Test
    void peerClosingMidAllGatherIsNamedByEveryone() {
        assertTimeoutPreemptively(LIMIT, () -> {
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                int n = 4;
                List<BootstrapHarness.Outcome<Bootstrap>> out = BootstrapHarness.parallel(n,
                        r -> Bootstrap.init(id, r, n, LO, Deadline.afterMillis(5000), null));
                List<Bootstrap> bs = out.stream().map(BootstrapHarness.Outcome::get).toList();
                try {
                    bs.get(2).abort(); // rank 2 dies
                    List<BootstrapHarness.Outcome<byte[]>> ag = BootstrapHarness.parallel(n, r -> {
                        if (r == 2) {
                            return null;
                        }
                        return bs.get(r).allGather(new byte[16], Deadline.afterMillis(5000));
                    });
                    for (int r = 0; r < n; r++) {
                        if (r != 2) {
                            NcclException e = ag.get(r).failure();
                            assertFailure(e, Result.REMOTE_ERROR, "rank " + r + " of 4", "rank 2 at 127.0.0.1:");
                        }
                    }
                    NcclException again = assertThrows(NcclException.class,
                            () -> bs.get(0).allGather(new byte[1], Deadline.afterMillis(1000)));
                    assertFailure(again, Result.REMOTE_ERROR, "ring is broken");
                } finally {
                    bs.forEach(Bootstrap::close);
                }
            }
        });
    }

    @Test
    void aForgedFailureNoticeIsDroppedAndARealOneFailsTheReceivesAtOnce() {
        assertTimeoutPreemptively(LIMIT, () -> BootstrapHarness.withTwoRanks((nonce, b0, b1) -> {
            FutureTask<byte[]> waiting = BootstrapHarness.async("recv", () -> b0.recv(1, 7, Deadline.afterMillis(5000)));
            // Whoever knows the id (no key) claims rank 1 failed: no token, then a wrong one.
            for (byte[] payload : List.of(new byte[0], new byte[] {1, 2, 3, 4, 5, 6, 7, 8})) {
                try (Socket s = new Socket(LO, b0.listenAddress().getPort())) {
                    s.getOutputStream().write(Wire.headerAndFrame(nonce, Wire.KIND_P2P, 1, Bootstrap.GONE_TAG,
                            payload).array());
                }
            }
            Thread.sleep(300);
            assertTrue(!waiting.isDone(), "the receive ended on a forged notice");
            b1.send(0, 7, new byte[] {42}, Deadline.afterMillis(2000));
            assertArrayEquals(new byte[] {42}, waiting.get(5, TimeUnit.SECONDS));

            FutureTask<byte[]> next = BootstrapHarness.async("recv", () -> b0.recv(1, 8, Deadline.afterMillis(8000)));
            Thread.sleep(100);
            long start = System.nanoTime();
            b1.announceGone(Deadline.afterMillis(1000));
            assertFailure(thrown(next), Result.REMOTE_ERROR, "rank 1's communicator failed or was aborted");
            assertTrue((System.nanoTime() - start) / 1_000_000 < 2000, "the notice took too long");
            // And every later receive from it, without waiting.
            NcclException later = assertThrows(NcclException.class, () -> b0.recv(1, 9, Deadline.afterMillis(8000)));
            assertFailure(later, Result.REMOTE_ERROR, "rank 1's communicator failed or was aborted");
        }));
    }

    @Test
    void rootCloseIsPromptAndIdempotent() {
        assertTimeoutPreemptively(LIMIT, () -> {
            BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), 9L);
            assertTrue(root.isRunning());
            long start = System.nanoTime();
            root.close();
            root.close();
            assertTrue((System.nanoTime() - start) / 1_000_000 < 1000);
            assertTrue(!root.isRunning());
            // Its port is free again.
            try (var s = new java.net.ServerSocket()) {
                s.bind(root.address());
            }
            NcclException e = assertThrows(NcclException.class, () -> {
                try (var taken = new java.net.ServerSocket(0, 1, LO)) {
                    BootstrapRoot.start(BootstrapHarness.loopback(taken.getLocalPort()), 1L);
                }
            });
            assertFailure(e, Result.SYSTEM_ERROR, "bootstrap root cannot listen on 127.0.0.1:");
        });
    }
}
