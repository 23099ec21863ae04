package org.nccl4j.net.socket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.nccl4j.net.spi.ListenComm;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetProperties;
import org.nccl4j.net.spi.NetProvider;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.SendComm;
import org.nccl4j.net.spi.testkit.CommPair;
import org.nccl4j.net.spi.testkit.RequestDriver;
import org.nccl4j.net.spi.testkit.TestNetContext;
import org.nccl4j.net.spi.testkit.TestPattern;

/** What the Socket net does beyond the generic kit: NCCL's properties, limits, errors and wire rules. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SocketNetBehaviourTest {
    private SocketNet net;
    private TestNetContext context;
    private RequestDriver driver;
    private final Arena arena = Arena.ofShared();

    private SocketNet start(Map<String, String> extra) throws NetException {
        Map<String, String> params = new HashMap<>(Map.of("NCCL_SOCKET_IFNAME", "lo"));
        params.putAll(extra);
        context = new TestNetContext(params);
        net = new SocketNet();
        net.init(context);
        driver = new RequestDriver(net, Duration.ofSeconds(30));
        return net;
    }

    @AfterEach
    void tearDown() {
        if (net != null) {
            net.shutdown();
        }
        arena.close();
    }

    @Test
    void providerIsFoundByServiceLoader() {
        NetProvider p = ServiceLoader.load(NetProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(x -> x.name().equals("Socket")).findFirst().orElseThrow();
        assertEquals(300, p.priority());
        assertTrue(p.create() instanceof SocketNet);
    }

    @Test
    void loopbackDeviceHasNcclsProperties() throws NetException {
        start(Map.of());
        assertEquals(1, net.devices());
        NetProperties p = net.getProperties(0);
        assertEquals("lo", p.name());
        assertNull(p.pciPath(), "lo is virtual");
        assertEquals(0, p.guid());
        assertEquals(Net.PTR_HOST, p.ptrSupport());
        assertEquals(SocketDevice.DEFAULT_SPEED, p.speed(), "the kernel reports no speed for lo");
        assertEquals(0, p.port());
        assertEquals(65536, p.maxComms());
        assertEquals("NCCL_SOCKET_IFNAME=lo selected lo", net.interfaceSelection().reason());
        List<String> lines = context.lines();
        assertTrue(lines.contains("INFO NET/Socket : Using [0]lo:127.0.0.1<0>"), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("INFO NET/Socket : Netty " + net.transportName()
                + " transport")), lines.toString());
    }

    @Test
    void initFailsWithoutInterfaceOrWithBadCommId() {
        SocketNet none = new SocketNet();
        NetException e = assertThrows(NetException.class,
                () -> none.init(new TestNetContext(Map.of("NCCL_SOCKET_IFNAME", "=nosuchif"))));
        assertEquals(NetException.Kind.SYSTEM, e.kind());
        assertTrue(e.getMessage().contains("no interface found"), e.getMessage());
        SocketNet badId = new SocketNet();
        NetException e2 = assertThrows(NetException.class,
                () -> badId.init(new TestNetContext(Map.of("NCCL_COMM_ID", "not-an-address"))));
        assertEquals(NetException.Kind.INVALID_ARGUMENT, e2.kind());
    }

    @Test
    void handleCarriesTheListenersSocketCounts() throws NetException {
        start(Map.of("NCCL_SOCKET_NTHREADS", "3", "NCCL_NSOCKS_PERTHREAD", "2"));
        byte[] handle = new byte[Net.HANDLE_MAXSIZE];
        ListenComm l = net.listen(0, handle);
        SocketHandle h = SocketHandle.parse(handle);
        assertEquals(6, h.nSocks());
        assertEquals(3, h.nThreads());
        assertTrue(h.address().getAddress().isLoopbackAddress());
        assertTrue(context.lines().contains("INFO NET/Socket: Using 3 threads and 2 sockets per thread"),
                context.lines().toString());
        net.closeListen(l);
    }

    @Test
    void ninthRequestIsRefused() throws Exception {
        start(Map.of());
        CommPair pair = driver.connect(0);
        MemorySegment buf = arena.allocate(64);
        MemoryHandle h = net.regMr(pair.recv(), buf, Net.PTR_HOST);
        for (int i = 0; i < 8; i++) {
            assertNotNull(net.irecv(pair.recv(), buf, h));
        }
        NetException e = assertThrows(NetException.class, () -> net.irecv(pair.recv(), buf, h));
        assertEquals(NetException.Kind.INTERNAL, e.kind());
        assertTrue(e.getMessage().contains("unable to allocate requests"), e.getMessage());
        net.closeSend(pair.send());
        net.closeRecv(pair.recv());
    }

    @Test
    void truncatedMessageFailsTheReceive() throws Exception {
        start(Map.of());
        CommPair pair = driver.connect(0);
        MemorySegment src = arena.allocate(1000);
        MemorySegment dst = arena.allocate(999);
        Request s = net.isend(pair.send(), src, net.regMr(pair.send(), src, Net.PTR_HOST));
        Request r = net.irecv(pair.recv(), dst, net.regMr(pair.recv(), dst, Net.PTR_HOST));
        NetException e = assertThrows(NetException.class, () -> driver.complete("truncated receive", r));
        assertEquals(NetException.Kind.INTERNAL, e.kind());
        assertTrue(e.getMessage().contains("message truncated : receiving 1000 bytes instead of 999"), e.getMessage());
        // The receiving comm is unusable afterwards; the sender finishes or learns the peer left.
        assertThrows(NetException.class, () -> net.irecv(pair.recv(), dst, null));
        try {
            driver.complete("send of the truncated message", s);
        } catch (NetException expected) {
            assertEquals(NetException.Kind.REMOTE, expected.kind());
        }
        net.closeSend(pair.send());
        net.closeRecv(pair.recv());
    }

    @Test
    void peerDisconnectFailsPendingRequestsNamingThePeer() throws Exception {
        start(Map.of());
        CommPair pair = driver.connect(0);
        MemorySegment dst = arena.allocate(4096);
        Request r = net.irecv(pair.recv(), dst, net.regMr(pair.recv(), dst, Net.PTR_HOST));
        assertEquals(-1, net.test(r));
        InetSocketAddress senderLocal = (InetSocketAddress) ((SocketSendComm) pair.send()).control.localAddress();
        net.closeSend(pair.send());
        NetException e = assertThrows(NetException.class, () -> driver.complete("receive from a closed peer", r));
        assertEquals(NetException.Kind.REMOTE, e.kind());
        assertTrue(e.getMessage().contains("127.0.0.1<" + senderLocal.getPort() + ">"), e.getMessage());
        net.closeRecv(pair.recv());
    }

    @Test
    void senderLearnsThatTheReceiverLeft() throws Exception {
        start(Map.of());
        CommPair pair = driver.connect(0);
        net.closeRecv(pair.recv());
        MemorySegment src = arena.allocate(1 << 20);
        MemoryHandle h = net.regMr(pair.send(), src, Net.PTR_HOST);
        NetException e = assertThrows(NetException.class, () -> {
            for (int i = 0; i < 1000; i++) {
                driver.send(pair.send(), src, h);
            }
        });
        assertEquals(NetException.Kind.REMOTE, e.kind());
        assertTrue(e.getMessage().contains("127.0.0.1<"), e.getMessage());
        net.closeSend(pair.send());
    }

    @Test
    void connectToAClosedListenerFails() throws Exception {
        start(Map.of());
        byte[] handle = new byte[Net.HANDLE_MAXSIZE];
        net.closeListen(net.listen(0, handle));
        NetException e = assertThrows(NetException.class, () -> driver.untilNonNull("connect", () -> net.connect(0, handle)));
        assertEquals(NetException.Kind.SYSTEM, e.kind());
        assertTrue(e.getMessage().startsWith("NET/Socket : connect to 127.0.0.1<"), e.getMessage());
    }

    @Test
    void strangersAreDroppedAndTheRealPeerIsAccepted() throws Exception {
        start(Map.of());
        byte[] handle = new byte[Net.HANDLE_MAXSIZE];
        ListenComm l = net.listen(0, handle);
        try (Socket stranger = rawClient(handle)) {
            stranger.getOutputStream().write(new byte[Handshake.SIZE]);
            stranger.getOutputStream().flush();
            assertEquals(-1, stranger.getInputStream().read(), "the listener closes a connection with a wrong magic");
        }
        assertNull(net.accept(l));
        SendComm send = driver.untilNonNull("connect", () -> net.connect(0, handle));
        RecvComm recv = driver.untilNonNull("accept", () -> net.accept(l));
        net.closeListen(l);
        assertTrue(context.lines().stream().anyMatch(s -> s.contains("dropping connection") && s.contains("wrong magic")),
                context.lines().toString());
        MemorySegment src = arena.allocate(10);
        MemorySegment dst = arena.allocate(10);
        TestPattern.fill(src, 3);
        Request s = net.isend(send, src, HostRegistration.INSTANCE);
        Request r = net.irecv(recv, dst, HostRegistration.INSTANCE);
        assertEquals(10, driver.complete("receive", r));
        assertEquals(10, driver.complete("send", s));
        TestPattern.assertSame("after stranger", src, dst, 10);
        net.closeSend(send);
        net.closeRecv(recv);
    }

    @Test
    void heapSegmentsAreCopiedBothWays() throws Exception {
        start(Map.of("NCCL_SOCKET_NTHREADS", "1", "NCCL_NSOCKS_PERTHREAD", "2"));
        CommPair pair = driver.connect(0);
        // A byte[] (viewable as a ByteBuffer) one way, a long[] (copied) the other.
        MemorySegment src = MemorySegment.ofArray(new byte[3 << 20]);
        MemorySegment dst = MemorySegment.ofArray(new long[(3 << 20) / 8 + 1]);
        MemorySegment back = MemorySegment.ofArray(new byte[(3 << 20) + 8]);
        TestPattern.fill(src, 11);
        Request s = net.isend(pair.send(), src, HostRegistration.INSTANCE);
        Request r = net.irecv(pair.recv(), dst, HostRegistration.INSTANCE);
        assertEquals(src.byteSize(), driver.complete("heap receive", r));
        assertEquals(src.byteSize(), driver.complete("heap send", s));
        TestPattern.assertSame("heap to heap", src, dst, src.byteSize());
        CommPair pair2 = driver.connect(0);
        MemorySegment longs = dst.asSlice(0, src.byteSize());
        Request s2 = net.isend(pair2.send(), longs, HostRegistration.INSTANCE);
        Request r2 = net.irecv(pair2.recv(), back, HostRegistration.INSTANCE);
        assertEquals(src.byteSize(), driver.complete("long[] receive", r2));
        assertEquals(src.byteSize(), driver.complete("long[] send", s2));
        TestPattern.assertSame("long[] to byte[]", src, back, src.byteSize());
        net.closeSend(pair2.send());
        net.closeRecv(pair2.recv());
        net.closeSend(pair.send());
        net.closeRecv(pair.recv());
    }

    @Test
    void testingACompletedRequestAgainIsRefused() throws Exception {
        start(Map.of());
        CommPair pair = driver.connect(0);
        MemorySegment buf = arena.allocate(8);
        Request s = net.isend(pair.send(), buf, HostRegistration.INSTANCE);
        Request r = net.irecv(pair.recv(), buf, HostRegistration.INSTANCE);
        driver.complete("receive", r);
        driver.complete("send", s);
        NetException e = assertThrows(NetException.class, () -> net.test(s));
        assertEquals(NetException.Kind.INVALID_USAGE, e.kind());
        net.closeSend(pair.send());
        net.closeRecv(pair.recv());
    }

    @Test
    void shutdownStopsTheEventLoopsAndRefusesLaterCalls() throws Exception {
        start(Map.of());
        CommPair pair = driver.connect(0);
        List<Thread> loops = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("nccl4j-net-socket")).toList();
        assertTrue(!loops.isEmpty() && loops.stream().allMatch(Thread::isDaemon), loops.toString());
        net.shutdown();
        net.shutdown();
        for (Thread t : loops) {
            t.join(10_000);
            assertTrue(!t.isAlive(), t.getName() + " still runs after shutdown");
        }
        assertThrows(NetException.class, () -> net.devices());
        assertThrows(NetException.class, () -> net.isend(pair.send(), arena.allocate(1), HostRegistration.INSTANCE));
        assertThrows(NetException.class, () -> net.init(context));
    }

    @Test
    void splitPiecesArriveInTheirPlacesForMixedSizes() throws Exception {
        // 3 data sockets (not a power of two) so the round-robin counter wraps at odd points.
        start(Map.of("NCCL_SOCKET_NTHREADS", "3", "NCCL_NSOCKS_PERTHREAD", "1"));
        CommPair pair = driver.connect(0);
        long[] sizes = {200_000, 1, 0, 65536 * 3 + 1, 70_000, 5 << 20, 131_073, 0, 64};
        for (int round = 0; round < 3; round++) {
            for (long size : sizes) {
                MemorySegment src = arena.allocate(Math.max(size, 1)).asSlice(0, size);
                MemorySegment dst = arena.allocate(size + 8);
                TestPattern.fill(src, size * 13 + round);
                Request s = net.isend(pair.send(), src, HostRegistration.INSTANCE);
                Request r = net.irecv(pair.recv(), dst, HostRegistration.INSTANCE);
                assertEquals(size, driver.complete("receive of " + size, r));
                assertEquals(size, driver.complete("send of " + size, s));
                TestPattern.assertSame("piece placement for " + size, src, dst, size);
            }
        }
        net.closeSend(pair.send());
        net.closeRecv(pair.recv());
    }

    @Test
    void wireFormatIsSizeHeaderThenPayload() throws Exception {
        // nSocks = 0: a raw TCP peer sees the handshake, then the 8-byte little-endian size, then the bytes.
        start(Map.of());
        java.net.ServerSocket server = new java.net.ServerSocket(0, 1, java.net.InetAddress.ofLiteral("127.0.0.1"));
        try (server) {
            byte[] handle = new byte[Net.HANDLE_MAXSIZE];
            new SocketHandle(new InetSocketAddress(server.getInetAddress(), server.getLocalPort()), 0, 0).writeTo(handle);
            SendComm send = null;
            Socket peer;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            server.setSoTimeout(10_000);
            send = net.connect(0, handle);
            peer = server.accept();
            while (send == null && System.nanoTime() < deadline) {
                send = net.connect(0, handle);
                Thread.sleep(1);
            }
            assertNotNull(send);
            MemorySegment msg = MemorySegment.ofArray(new byte[] {1, 2, 3});
            Request s = net.isend(send, msg, HostRegistration.INSTANCE);
            assertEquals(3, driver.complete("raw send", s));
            byte[] wire = peer.getInputStream().readNBytes(Handshake.SIZE + 8 + 3);
            ByteBuffer b = ByteBuffer.wrap(wire).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(SocketHandle.MAGIC, b.getLong(0));
            assertEquals(0, b.getInt(16), "control socket index = nSocks = 0");
            assertEquals(0, b.getInt(20));
            assertEquals(3, b.getLong(24));
            assertEquals(1, wire[32]);
            assertEquals(3, wire[34]);
            net.closeSend(send);
            peer.close();
        }
    }

    @Test
    void bytesThatCameWithTheHandshakeAndBytesInDribsAreReceived() throws Exception {
        // The listener reads the handshake on its event loop, then hands the control connection
        // to the calling threads: what that read took beyond the handshake must come first, and
        // a message whose header and payload arrive a byte at a time must still complete.
        start(Map.of());
        byte[] handle = new byte[Net.HANDLE_MAXSIZE];
        ListenComm l = net.listen(0, handle);
        try (Socket raw = rawClient(handle)) {
            raw.setTcpNoDelay(true);
            ByteBuffer first = ByteBuffer.allocate(Handshake.SIZE + 8 + 5).order(ByteOrder.LITTLE_ENDIAN);
            first.putLong(SocketHandle.MAGIC).putLong(42).putInt(0).putInt(0).putLong(5).put(new byte[] {1, 2, 3, 4, 5});
            raw.getOutputStream().write(first.array());
            raw.getOutputStream().flush();
            RecvComm recv = driver.untilNonNull("accept", () -> net.accept(l));
            MemorySegment dst = arena.allocate(16);
            assertEquals(5, driver.receive(recv, dst, HostRegistration.INSTANCE));
            assertEquals(List.of((byte) 1, (byte) 2, (byte) 3, (byte) 4, (byte) 5), bytes(dst, 5));
            Request r = net.irecv(recv, dst, HostRegistration.INSTANCE);
            byte[] second = ByteBuffer.allocate(8 + 3).order(ByteOrder.LITTLE_ENDIAN).putLong(3).put(new byte[] {9, 8, 7})
                    .array();
            for (byte b : second) {
                assertEquals(-1, net.test(r), "a receive completes only with its last byte");
                raw.getOutputStream().write(b);
                raw.getOutputStream().flush();
                Thread.sleep(2);
            }
            assertEquals(3, driver.complete("receive in dribs", r));
            assertEquals(List.of((byte) 9, (byte) 8, (byte) 7), bytes(dst, 3));
            net.closeRecv(recv);
        }
        net.closeListen(l);
    }

    @Test
    void shutdownClosesTheSocketsOfCommsLeftOpen() throws Exception {
        // The calling threads drive these connections, so no event loop closes them at shutdown.
        long before = openSockets();
        start(Map.of());
        CommPair pair = driver.connect(0);
        MemorySegment buf = arena.allocate(8);
        Request s = net.isend(pair.send(), buf, HostRegistration.INSTANCE);
        assertEquals(8, driver.receive(pair.recv(), buf, HostRegistration.INSTANCE));
        assertEquals(8, driver.complete("send", s));
        assertTrue(openSockets() >= before + 2, "both ends of the connection are open");
        net.shutdown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (openSockets() != before && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(before, openSockets(), "sockets still open after shutdown");
    }

    /** @return a plain TCP connection to the listener whose handle this is (a stranger, or a hand-written peer) */
    private static Socket rawClient(byte[] handle) throws Exception {
        InetSocketAddress addr = SocketHandle.parse(handle).address();
        return new Socket(addr.getAddress(), addr.getPort());
    }

    /** @return this process's open socket descriptors */
    private static long openSockets() throws java.io.IOException {
        try (var fds = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return java.nio.file.Files.readSymbolicLink(fd).toString().startsWith("socket:");
                } catch (java.io.IOException e) {
                    return false; // closed while listed
                }
            }).count();
        }
    }

    private static List<Byte> bytes(MemorySegment s, int n) {
        List<Byte> out = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i));
        }
        return out;
    }
}
