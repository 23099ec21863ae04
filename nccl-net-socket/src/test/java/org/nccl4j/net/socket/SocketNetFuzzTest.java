package org.nccl4j.net.socket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nccl4j.net.spi.ListenComm;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.SendComm;
import org.nccl4j.net.spi.auth.ConnectionAuth;
import org.nccl4j.net.spi.testkit.RequestDriver;
import org.nccl4j.net.spi.testkit.TestNetContext;
import org.nccl4j.net.spi.testkit.TestPattern;
import org.nccl4j.net.spi.testkit.WireFuzz;

/**
 * Hostile input on a Socket net listen port ({@link WireFuzz}: generated from real handshakes),
 * with and without data sockets and a key: the real connector is still accepted and its bytes
 * arrive intact; with a key no stranger is ever accepted; without one the strangers that passed
 * for a connector are accepted as NCCL would, closed here, and nothing else; the partial groups
 * strangers leave are bounded. {@code -Dnccl4j.fuzz.inputs} and {@code -Dnccl4j.fuzz.seed} as in
 * the bootstrap's.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SocketNetFuzzTest {
    private static final int INPUTS = WireFuzz.inputsPerPort(600);
    private SocketNet net;
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void tearDown() {
        if (net != null) {
            net.shutdown();
        }
        arena.close();
    }

    @ParameterizedTest
    @CsvSource({"0, true", "2, true", "0, false", "2, false"})
    void theRealConnectorIsAcceptedAndItsBytesArriveIntact(int nsocks, boolean withKey) throws Exception {
        long seed = WireFuzz.seed();
        System.out.println("SocketNetFuzzTest seed " + seed + " inputs " + INPUTS + " nsocks " + nsocks + " key " + withKey);
        Map<String, String> params = new HashMap<>(Map.of("NCCL_SOCKET_IFNAME", "lo", "NCCL_NSOCKS_PERTHREAD",
                Integer.toString(nsocks), "NCCL_SOCKET_NTHREADS", "1"));
        if (withKey) {
            params.put(ConnectionAuth.KEY_PARAM, "0123456789abcdef-socket-fuzz");
        }
        TestNetContext context = new TestNetContext(params);
        net = new SocketNet();
        net.init(context);
        RequestDriver driver = new RequestDriver(net, Duration.ofSeconds(60));
        byte[] handle = new byte[Net.HANDLE_MAXSIZE];
        ListenComm l = net.listen(0, handle);
        InetSocketAddress at = SocketHandle.parse(handle).address();
        List<byte[]> seeds = new ArrayList<>();
        for (int i = 0; i <= nsocks; i++) {
            seeds.add(new Handshake(42, i, nsocks).bytes());
        }
        seeds.add(new Handshake(43, nsocks + 5, nsocks).bytes());
        seeds.add(new Handshake(44, 0, nsocks + 1).bytes());
        byte[] withPayload = new byte[Handshake.SIZE + 8 + 4];
        System.arraycopy(new Handshake(45, nsocks, nsocks).bytes(), 0, withPayload, 0, Handshake.SIZE);
        withPayload[Handshake.SIZE] = 4;
        seeds.add(withPayload);
        int strangersAccepted = 0;
        for (byte[] in : new WireFuzz(seed, seeds).next(INPUTS)) {
            strike(at, in);
            strangersAccepted += drainAccepts(l);
        }
        if (withKey) {
            assertEquals(0, strangersAccepted, "a stranger passed the key check (seed " + seed + ")");
        }
        assertTrue(((SocketListenComm) l).partialCount() <= SocketListenComm.MAX_PARTIAL, "partial groups unbounded (seed " + seed + ")");
        // Strangers still on their way are accepted (and closed) before the real connector comes.
        Thread.sleep(300);
        strangersAccepted += drainAccepts(l);
        SendComm send = driver.untilNonNull("connect", () -> net.connect(0, handle));
        RecvComm recv = driver.untilNonNull("accept", () -> net.accept(l));
        MemorySegment src = arena.allocate(1 << 20);
        MemorySegment dst = arena.allocate(1 << 20);
        TestPattern.fill(src, 5);
        Request r = net.irecv(recv, dst, HostRegistration.INSTANCE);
        Request s = net.isend(send, src, HostRegistration.INSTANCE);
        assertEquals(src.byteSize(), driver.complete("receive", r));
        assertEquals(src.byteSize(), driver.complete("send", s));
        TestPattern.assertSame("after the fuzz (seed " + seed + ")", src, dst, src.byteSize());
        net.closeSend(send);
        net.closeRecv(recv);
        net.closeListen(l);
        System.out.println("SocketNetFuzzTest: strangers accepted as connectors: " + strangersAccepted);
    }

    private int drainAccepts(ListenComm l) throws Exception {
        int n = 0;
        for (RecvComm r; (r = net.accept(l)) != null; ) {
            net.closeRecv(r);
            n++;
        }
        return n;
    }

    private static void strike(InetSocketAddress at, byte[] input) {
        try (Socket s = new Socket()) {
            s.connect(at, 2000);
            s.setSoLinger(true, 0);
            s.getOutputStream().write(input);
        } catch (IOException e) {
            // Closed by the listener first: refused.
        }
    }
}
