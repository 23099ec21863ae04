package org.nccl4j.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nccl4j.core.bootstrap.BootstrapHarness.LO;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.FutureTask;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.wait.Deadline;
import org.nccl4j.net.spi.auth.ConnectionAuth;

/**
 * Bootstrap with {@code NCCL4J_AUTH_KEY}: ranks with the key form it; a stranger who knows
 * everything but the key (the unique id's nonce, the wire format, a rank's port) is refused at
 * the root and at a rank's listener, and so is a recorded answer replayed; a rank whose peer has
 * no key fails naming the missing challenge. The strangers here are raw sockets that speak the
 * protocol byte for byte.
 */
class BootstrapAuthTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static final ConnectionAuth KEY = ConnectionAuth.of("0123456789abcdef-the-shared-key", null);
    private static final ConnectionAuth OTHER_KEY = ConnectionAuth.of("fedcba9876543210-another-key", null);

    @Test
    void aForgedCheckInAtTheRootIsRefusedAndTheRanksWithTheKeyFormTheBootstrap() {
        assertTimeoutPreemptively(LIMIT, () -> {
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce, BootstrapRoot.DEFAULT_HANDSHAKE_MS, KEY)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                // Before the real rank 1: a check-in as rank 1 of 2, right nonce, an answer under another key. Taken,
                // it would give rank 0 a ring neighbour that is not there (or the real rank 1 a
                // duplicate-rank error).
                try (Socket forged = new Socket(LO, root.address().getPort())) {
                    byte[] c = readChallenge(forged);
                    InetSocketAddress fake = new InetSocketAddress(LO, 9);
                    Wire.CheckIn ci = new Wire.CheckIn(2, 60_000, fake, fake);
                    byte[] header = Wire.header(nonce, Wire.KIND_CHECKIN, 1, 0).array();
                    send(forged, header, OTHER_KEY.answer(Wire.AUTH_PURPOSE, c, header), ci.encode());
                    Thread.sleep(200);
                    List<BootstrapHarness.Outcome<Bootstrap>> out = BootstrapHarness.parallel(2,
                            r -> Bootstrap.init(id, r, 2, LO, Deadline.afterMillis(10_000), null, 20_000, 10_000, KEY));
                    Bootstrap b0 = out.get(0).get();
                    Bootstrap b1 = out.get(1).get();
                    try {
                        assertEquals(b1.listenAddress(), b0.peerAddress(1), "rank 0 sees the real rank 1");
                        b1.send(0, 3, new byte[] {42}, Deadline.afterMillis(5000));
                        assertArrayEquals(new byte[] {42}, b0.recv(1, 3, Deadline.afterMillis(5000)));
                    } finally {
                        b0.close();
                        b1.close();
                    }
                }
            }
        });
    }

    @Test
    void strangersWithoutTheKeyCannotPutAMessageIntoARanksReceives() {
        assertTimeoutPreemptively(LIMIT, () -> {
            try (Pair p = Pair.start(KEY)) {
                FutureTask<byte[]> recv = BootstrapHarness.async("recv", () -> p.b0.recv(1, 7, Deadline.afterMillis(10_000)));
                InetSocketAddress at = p.b0.listenAddress();
                byte[] header = Wire.header(p.nonce, Wire.KIND_P2P, 1, 7).array();
                // No answer at all: header and frame right away, as an unauthenticated rank sends them.
                try (Socket none = new Socket(LO, at.getPort());
                     Socket wrong = new Socket(LO, at.getPort())) {
                    none.getOutputStream().write(Wire.headerAndFrame(p.nonce, Wire.KIND_P2P, 1, 7, "evil".getBytes()).array());
                    // An answer under another key.
                    byte[] c = readChallenge(wrong);
                    send(wrong, header, OTHER_KEY.answer(Wire.AUTH_PURPOSE, c, header), "evil".getBytes());
                    Thread.sleep(300);
                    assertTrue(!recv.isDone(), "a stranger's message was delivered");
                    p.b1.send(0, 7, "good".getBytes(), Deadline.afterMillis(5000));
                    assertEquals("good", new String(recv.get()));
                    assertEquals(-1, wrong.getInputStream().read(), "a refused connection is closed");
                }
            }
        });
    }

    @Test
    void aRecordedAnswerDoesNotFitTheNextChallenge() {
        assertTimeoutPreemptively(LIMIT, () -> {
            try (Pair p = Pair.start(KEY)) {
                InetSocketAddress at = p.b0.listenAddress();
                byte[] header = Wire.header(p.nonce, Wire.KIND_P2P, 1, 8).array();
                byte[] recorded;
                // A genuine connection (this test holds the key), as an eavesdropper would record it.
                try (Socket genuine = new Socket(LO, at.getPort())) {
                    byte[] c = readChallenge(genuine);
                    recorded = KEY.answer(Wire.AUTH_PURPOSE, c, header);
                    send(genuine, header, recorded, "first".getBytes());
                }
                assertEquals("first", new String(p.b0.recv(1, 8, Deadline.afterMillis(5000))));
                try (Socket replay = new Socket(LO, at.getPort())) {
                    readChallenge(replay);
                    send(replay, header, recorded, "replayed".getBytes());
                    NcclException e = assertThrows(NcclException.class, () -> p.b0.recv(1, 8, Deadline.afterMillis(700)));
                    assertEquals(Result.TIMEOUT, e.result(), e.getMessage());
                    assertEquals(-1, replay.getInputStream().read(), "the replay's connection is closed");
                }
            }
        });
    }

    @Test
    void aRankWithTheKeyNamesTheMissingChallengeOfAPeerWithout() {
        assertTimeoutPreemptively(LIMIT, () -> {
            long nonce = BootstrapId.newNonce();
            try (BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce)) {
                BootstrapId id = BootstrapHarness.idFor(root, nonce);
                NcclException e = assertThrows(NcclException.class,
                        () -> Bootstrap.init(id, 0, 1, LO, Deadline.afterMillis(1500), null, 20_000, 10_000, KEY));
                assertEquals(Result.TIMEOUT, e.result(), e.getMessage());
                assertTrue(e.getMessage().contains("authentication challenge: is NCCL4J_AUTH_KEY set there too?"),
                        e.getMessage());
            }
        });
    }

    private static byte[] readChallenge(Socket s) throws IOException {
        s.setSoTimeout(10_000); // a listener that keeps a connection it should close fails the read, not the build
        DataInputStream in = new DataInputStream(s.getInputStream());
        int len = in.readInt();
        assertEquals(ConnectionAuth.CHALLENGE_BYTES, len, "the challenge frame's length");
        byte[] c = new byte[len];
        in.readFully(c);
        return c;
    }

    private static void send(Socket s, byte[] header, byte[] answer, byte[] payload) throws IOException {
        OutputStream o = s.getOutputStream();
        o.write(header);
        o.write(answer);
        o.write(Wire.frame(payload).array());
        o.flush();
    }

    /** Two ranks with the key, bootstrapped. */
    private record Pair(long nonce, BootstrapRoot root, Bootstrap b0, Bootstrap b1) implements AutoCloseable {
        static Pair start(ConnectionAuth auth) throws Exception {
            long nonce = BootstrapId.newNonce();
            BootstrapRoot root = BootstrapRoot.start(BootstrapHarness.loopback(0), nonce, BootstrapRoot.DEFAULT_HANDSHAKE_MS, auth);
            BootstrapId id = BootstrapHarness.idFor(root, nonce);
            List<BootstrapHarness.Outcome<Bootstrap>> out = BootstrapHarness.parallel(2,
                    r -> Bootstrap.init(id, r, 2, LO, Deadline.afterMillis(10_000), null, 20_000, 10_000, auth));
            return new Pair(nonce, root, out.get(0).get(), out.get(1).get());
        }

        @Override
        public void close() {
            b0.abort();
            b1.abort();
            root.close();
        }
    }
}
