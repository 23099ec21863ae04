package org.nccl4j.net.socket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nccl4j.net.spi.ListenComm;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.SendComm;
import org.nccl4j.net.spi.auth.ConnectionAuth;
import org.nccl4j.net.spi.testkit.CommPair;
import org.nccl4j.net.spi.testkit.RequestDriver;
import org.nccl4j.net.spi.testkit.TestNetContext;
import org.nccl4j.net.spi.testkit.TestPattern;

/**
 * The Socket net with {@code NCCL4J_AUTH_KEY}: connections with the key carry data, byte for
 * byte, with and without data sockets; a stranger that speaks the handshake but not the key, a
 * replayed answer and a net without the key are refused; a net with the key never completes a
 * connection to a listener without one (its caller's deadline ends it).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SocketNetAuthTest {
    private static final String KEY = "0123456789abcdef-net-socket-key";
    private SocketNet net;
    private SocketNet other;
    private TestNetContext context;
    private RequestDriver driver;
    private final Arena arena = Arena.ofShared();

    private SocketNet start(String key, Map<String, String> extra) throws NetException {
        Map<String, String> params = new HashMap<>(Map.of("NCCL_SOCKET_IFNAME", "lo"));
        if (key != null) {
            params.put(ConnectionAuth.KEY_PARAM, key);
        }
        params.putAll(extra);
        TestNetContext c = new TestNetContext(params);
        SocketNet n = new SocketNet();
        n.init(c);
        if (net == null) {
            net = n;
            context = c;
            driver = new RequestDriver(n, Duration.ofSeconds(30));
        } else {
            other = n;
        }
        return n;
    }

    @AfterEach
    void tearDown() {
        if (net != null) {
            net.shutdown();
        }
        if (other != null) {
            other.shutdown();
        }
        arena.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "2"})
    void connectionsWithTheKeyCarryTheData(String nsocks) throws Exception {
        start(KEY, Map.of("NCCL_NSOCKS_PERTHREAD", nsocks, "NCCL_SOCKET_NTHREADS", "1"));
        assertTrue(context.lines().stream().anyMatch(l -> l.contains("connections authenticated (NCCL4J_AUTH_KEY)")),
                context.lines().toString());
        CommPair pair = driver.connect(0);
        MemorySegment src = arena.allocate(3 << 20);
        MemorySegment dst = arena.allocate(3 << 20);
        TestPattern.fill(src, 11);
        Request r = net.irecv(pair.recv(), dst, HostRegistration.INSTANCE);
        Request s = net.isend(pair.send(), src, HostRegistration.INSTANCE);
        assertEquals(src.byteSize(), driver.complete("receive", r));
        assertEquals(src.byteSize(), driver.complete("send", s));
        TestPattern.assertSame("authenticated", src, dst, src.byteSize());
        net.closeSend(pair.send());
        net.closeRecv(pair.recv());
    }

    @Test
    void aStrangerWithoutTheKeyAndAReplayedAnswerAreRefused() throws Exception {
        start(KEY, Map.of("NCCL_NSOCKS_PERTHREAD", "0"));
        byte[] handle = new byte[Net.HANDLE_MAXSIZE];
        ListenComm l = net.listen(0, handle);
        ConnectionAuth key = ConnectionAuth.of(KEY, null);
        ConnectionAuth wrong = ConnectionAuth.of("fedcba9876543210-not-the-key", null);
        byte[] hs = new Handshake(7, 0, 0).bytes(); // the control connection of a connector with no data sockets
        try (Socket stranger = rawClient(handle)) {
            byte[] c = challenge(stranger);
            stranger.getOutputStream().write(hs);
            stranger.getOutputStream().write(wrong.answer(Handshake.AUTH_PURPOSE, c, hs));
            assertEquals(-1, stranger.getInputStream().read(), "the listener closes it");
        }
        byte[] recorded;
        try (Socket genuine = rawClient(handle)) {
            byte[] c = challenge(genuine);
            recorded = key.answer(Handshake.AUTH_PURPOSE, c, hs);
            genuine.getOutputStream().write(hs);
            genuine.getOutputStream().write(recorded);
            assertTrue(driver.untilNonNull("accept of the genuine connection", () -> net.accept(l)) != null);
        }
        try (Socket replay = rawClient(handle)) {
            challenge(replay);
            replay.getOutputStream().write(hs); // the recorded handshake and answer, byte for byte
            replay.getOutputStream().write(recorded);
            assertEquals(-1, replay.getInputStream().read(), "the listener closes the replay");
        }
        assertNull(net.accept(l), "nothing but the genuine connection was accepted");
        long refused = context.lines().stream().filter(x -> x.contains("dropping connection")
                && x.contains("authentication failed")).count();
        assertEquals(2, refused, context.lines().toString());
        net.closeListen(l);
    }

    @Test
    void aNetWithoutTheKeyIsRefusedAndANetWithItWaitsForAChallenge() throws Exception {
        start(KEY, Map.of("NCCL_NSOCKS_PERTHREAD", "0"));
        SocketNet plain = start(null, Map.of("NCCL_NSOCKS_PERTHREAD", "0"));
        byte[] handle = new byte[Net.HANDLE_MAXSIZE];
        ListenComm l = net.listen(0, handle);
        SendComm send = new RequestDriver(plain, Duration.ofSeconds(30)).untilNonNull("connect", () -> plain.connect(0, handle));
        // Its handshake and the first message's bytes fail as an answer.
        MemorySegment src = arena.allocate(64);
        plain.isend(send, src, HostRegistration.INSTANCE);
        long until = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < until && context.lines().stream().noneMatch(x -> x.contains("authentication failed"))) {
            Thread.sleep(20);
        }
        assertTrue(context.lines().stream().anyMatch(x -> x.contains("authentication failed")), context.lines().toString());
        assertNull(net.accept(l));
        net.closeListen(l);
        // The other way: a listener without the key sends no challenge; the connect stays pending.
        byte[] plainHandle = new byte[Net.HANDLE_MAXSIZE];
        ListenComm pl = plain.listen(0, plainHandle);
        for (int i = 0; i < 20; i++) {
            assertNull(net.connect(0, plainHandle), "connected without a challenge");
            Thread.sleep(25);
        }
        assertNull(plain.accept(pl));
        plain.closeListen(pl);
    }

    private static byte[] challenge(Socket s) throws Exception {
        byte[] c = new byte[ConnectionAuth.CHALLENGE_BYTES];
        new DataInputStream(s.getInputStream()).readFully(c);
        return c;
    }

    private static Socket rawClient(byte[] handle) throws Exception {
        InetSocketAddress addr = SocketHandle.parse(handle).address();
        Socket s = new Socket(addr.getAddress(), addr.getPort());
        s.setSoTimeout(10_000); // a listener that keeps a connection it should close fails the read, not the build
        return s;
    }
}
