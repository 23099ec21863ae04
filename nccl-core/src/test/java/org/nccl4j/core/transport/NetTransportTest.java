package org.nccl4j.core.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.NcclTimeoutException;
import org.nccl4j.NcclUsageException;
import org.nccl4j.Result;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.net.NetSelection;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Param;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.proxy.Proxy;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.Deadline;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.conn.ConnAllocator;
import org.nccl4j.core.conn.ConnMem;

/**
 * NET between two ranks of one JVM, each with its own proxy thread, as if on two hosts: through
 * a strict in-memory network and through the real Socket net over loopback.
 */
class NetTransportTest {
    private static final int BUFF = 8 * 1024;
    private static final long PID = ProcessHandle.current().pid();

    /** Rank 0 sends, rank 1 receives; each has a proxy recording its async errors. */
    static final class TwoRanks implements AutoCloseable {
        final Arena arena = Arena.ofShared();
        final AbortFlag abort0 = new AbortFlag();
        final AbortFlag abort1 = new AbortFlag();
        final List<NcclException> errors0 = new CopyOnWriteArrayList<>();
        final List<NcclException> errors1 = new CopyOnWriteArrayList<>();
        final Proxy proxy0 = new Proxy(0, abort0, errors0::add, true);
        final Proxy proxy1 = new Proxy(1, abort1, errors1::add, true);
        final TransportContext c0;
        final TransportContext c1;
        final NetTransport t = new NetTransport();

        TwoRanks(Net net, Config config) throws Exception {
            this(net, config, null, NetGdr.NONE);
        }

        /**
         * @param memory where both ranks' connection memory comes from, or null for the arena
         * @param gdr    where they use GPU Direct RDMA
         */
        TwoRanks(Net net, Config config, ConnAllocator memory, NetGdr gdr) throws Exception {
            List<PeerInfo> peers = List.of(StepKit.peer(0, 7, 100, PID), StepKit.peer(1, 8, 200, PID));
            NetSelection sel = new NetSelection(net, net.devices(), List.of());
            long commId = ThreadLocalRandom.current().nextLong();
            ConnAllocator m = memory == null ? arena::allocate : memory;
            c0 = new TransportContext(0, peers, commId, config, StepKit.buffs(BUFF), arena, m, gdr, sel, () -> proxy0,
                    abort0);
            c1 = new TransportContext(1, peers, commId, config, StepKit.buffs(BUFF), arena, m, gdr, sel, () -> proxy1,
                    abort1);
        }

        /** @return the send connection (rank 0) and the receive connection (rank 1) of a channel */
        Conn[] connect(int channel) {
            assertTrue(t.canConnect(c0, 1));
            Transport.Setup recv = t.setupRecv(c1, channel, 0);
            Transport.Setup send = t.setupSend(c0, channel, 1);
            assertEquals(Net.HANDLE_MAXSIZE, recv.info().length);
            // The sender connects without waiting for the accept (v5 non-blocking connect).
            Conn sc = t.connectSend(c0, send, recv.info());
            Conn rc = t.connectRecv(c1, recv, send.info());
            return new Conn[] {sc, rc};
        }

        @Override
        public void close() {
            proxy0.close();
            proxy1.close();
            arena.close();
        }
    }

    static void stream(Conn sc, Conn rc, long steps) throws Exception {
        Deadline d = Deadline.afterMillis(60_000);
        StepKit.concurrently(60_000, () -> {
            StepKit.send(sc, steps, d);
            return null;
        }, () -> {
            StepKit.recv(rc, steps, d);
            return null;
        });
    }

    @Test
    void stepsCrossAStrictNetworkInOrderWithFewRequests() throws Exception {
        try (TwoRanks r = new TwoRanks(new LoopbackNet(3, 2), StepKit.config(Map.of()))) {
            Conn[] c = r.connect(1);
            assertEquals("Channel 01 : 0[1000] -> 1[2000] [send] via NET/Loopback/1", c[0].description());
            assertEquals("Channel 01 : 0[1000] -> 1[2000] [receive] via NET/Loopback/1", c[1].description());
            stream(c[0], c[1], 2000);
            stream(c[0], c[1], 37); // a second operation continues the step counters
            // The sender's proxy returns credit when it sees its isend complete, after the
            // receiver may already be done: wait for the last acks, then check none is extra.
            StepKit.await(c[0], c[0].waitHeader(), 2037, Deadline.afterMillis(10_000));
            assertEquals(2037, ConnMem.counter(c[0].waitHeader()), "every step was acknowledged to the sender");
            assertEquals(List.of(), r.errors0);
            assertEquals(List.of(), r.errors1);
            c[0].close();
            c[1].close();
        }
    }

    /**
     * A device backend's NET connections: every byte a kernel touches (protocol buffers, both
     * headers) comes from the context's allocator, and the steps still cross.
     */
    @Test
    void connectionMemoryComesFromTheContextsAllocator() throws Exception {
        List<MemorySegment> given = new CopyOnWriteArrayList<>();
        try (Arena backend = Arena.ofShared()) {
            ConnAllocator memory = (bytes, alignment) -> {
                MemorySegment m = backend.allocate(bytes, alignment);
                given.add(m);
                return m;
            };
            try (TwoRanks r = new TwoRanks(new LoopbackNet(3, 2), StepKit.config(Map.of()), memory, NetGdr.NONE)) {
                Conn[] c = r.connect(0);
                for (Conn conn : c) {
                    for (Protocol p : Protocol.values()) {
                        assertTrue(within(given, conn.buff(p)), conn.description() + " " + p + " buffer");
                    }
                    assertTrue(within(given, conn.publishHeader()), conn.description() + " publish header");
                    assertTrue(within(given, conn.waitHeader()), conn.description() + " wait header");
                }
                stream(c[0], c[1], 300);
                assertEquals(List.of(), r.errors0);
                assertEquals(List.of(), r.errors1);
                c[0].close();
                c[1].close();
            }
        }
    }

    private static boolean within(List<MemorySegment> given, MemorySegment s) {
        return given.stream().anyMatch(g -> s.address() >= g.address()
                && s.address() + s.byteSize() <= g.address() + g.byteSize());
    }

    /**
     * A kernel ends once it has posted its last step, before the network carried it: a destroy
     * that stops the proxy then must first finish those sends, or the peer waits forever.
     */
    @Test
    void stoppingTheProxyFirstFinishesThePostedSends() throws Exception {
        try (TwoRanks r = new TwoRanks(new LoopbackNet(3, 2), StepKit.config(Map.of()))) {
            Conn[] c = r.connect(0);
            Deadline d = Deadline.afterMillis(10_000);
            StepKit.send(c[0], 5, d); // posted; nothing can leave before the receiver posts its receives
            assertTrue(!c[0].drained(), "posted steps are not sent yet");
            java.util.concurrent.CompletableFuture<Boolean> stopped =
                    java.util.concurrent.CompletableFuture.supplyAsync(r.proxy0::stop);
            LockSupport.parkNanos(50_000_000);
            assertTrue(!stopped.isDone(), "the stop waits for the posted sends");
            StepKit.recv(c[1], 5, d);
            assertTrue(stopped.get(5, java.util.concurrent.TimeUnit.SECONDS), "the proxy stopped once drained");
            assertEquals(List.of(), r.errors0);
            assertEquals(List.of(), r.errors1);
        }
    }

    @Test
    void stepsCrossTheSocketNet() throws Exception {
        Net net = SocketNetLoader.create();
        Config config = StepKit.config(Map.of("NCCL_SOCKET_IFNAME", "lo"));
        net.init(contextOf(config));
        try (TwoRanks r = new TwoRanks(net, config)) {
            Conn[] c = r.connect(0);
            assertEquals("Channel 00 : 0[1000] -> 1[2000] [send] via NET/Socket/0", c[0].description());
            stream(c[0], c[1], 1500);
            assertEquals(List.of(), r.errors0);
            assertEquals(List.of(), r.errors1);
            c[0].close();
            c[1].close();
        } finally {
            net.shutdown();
        }
    }

    private static NetContext contextOf(Config config) {
        return new NetContext() {
            @Override
            public org.nccl4j.net.spi.NetLogger logger() {
                return (level, subsystem, message) -> {
                };
            }

            @Override
            public String param(String ncclName) {
                Param p = Params.find(ncclName);
                return p == null ? null : config.string(p);
            }
        };
    }

    @Test
    void aLostPeerBecomesTheProxysRemoteError() throws Exception {
        try (TwoRanks r = new TwoRanks(new LoopbackNet(8, 0), StepKit.config(Map.of()))) {
            Conn[] c = r.connect(0);
            stream(c[0], c[1], 20);
            c[1].announce(c[1].step() + ConnMem.STEPS, Protocol.SIMPLE); // as a kernel about to wait for them
            c[0].close(); // rank 0 goes away: its endpoint closes under rank 1's posted receives
            NcclException e = awaitError(r.errors1);
            assertEquals(Result.REMOTE_ERROR, e.result());
            String m = e.getMessage();
            for (String part : List.of("Channel 00 : 0[1000] -> 1[2000] [receive] via NET/Loopback/0",
                    "closed by the sender", "rank 0 may have exited")) {
                assertTrue(m.contains(part), "'" + part + "' missing from: " + m);
            }
            // Either a posted receive's test or the next post notices, depending on timing.
            assertTrue(m.matches("(?s).*: (test\\(irecv\\)|irecv) of step 2\\d failed: .*"), m);
        }
    }

    @Test
    void aStepLargerThanItsSlotIsAnInternalError() throws Exception {
        try (TwoRanks r = new TwoRanks(new LoopbackNet(8, 0), StepKit.config(Map.of()))) {
            Conn[] c = r.connect(0);
            ConnMem.setSize(c[0].publishHeader(), 0, c[0].stepSize() + 1);
            c[0].publish(1);
            NcclException e = awaitError(r.errors0);
            assertEquals(Result.INTERNAL_ERROR, e.result());
            assertTrue(e.getMessage().contains("step 0 has size 1025 but a Simple slot holds 1024 bytes"), e.getMessage());
        }
    }

    @Test
    void connectAndAcceptHaveADeadlineAndObserveAbort() throws Exception {
        Config quick = StepKit.config(Map.of("NCCL4J_CONNECT_TIMEOUT_MS", "200"));
        try (TwoRanks r = new TwoRanks(new LoopbackNet(8, Integer.MAX_VALUE), quick)) {
            Transport.Setup recv = r.t.setupRecv(r.c1, 0, 0);
            Transport.Setup send = r.t.setupSend(r.c0, 0, 1);
            NcclTimeoutException e = assertThrows(NcclTimeoutException.class,
                    () -> r.t.connectSend(r.c0, send, recv.info()));
            assertEquals(Result.TIMEOUT, e.result());
            assertTrue(e.getMessage().contains("connect with rank 1 (localhost) did not complete within 200 ms"),
                    e.getMessage());
            assertTrue(e.getMessage().contains("NCCL4J_CONNECT_TIMEOUT_MS"), e.getMessage());
            NcclTimeoutException a = assertThrows(NcclTimeoutException.class,
                    () -> r.t.connectRecv(r.c1, recv, send.info()));
            assertTrue(a.getMessage().contains("accept with rank 0"), a.getMessage());
        }
        try (TwoRanks r = new TwoRanks(new LoopbackNet(8, Integer.MAX_VALUE), StepKit.config(Map.of()))) {
            Transport.Setup recv = r.t.setupRecv(r.c1, 0, 0);
            Transport.Setup send = r.t.setupSend(r.c0, 0, 1);
            Thread.ofPlatform().start(() -> {
                LockSupport.parkNanos(100_000_000);
                r.abort0.set("aborted by the test");
            });
            long t0 = System.nanoTime();
            NcclUsageException e = assertThrows(NcclUsageException.class, () -> r.t.connectSend(r.c0, send, recv.info()));
            assertTrue(e.getMessage().contains("interrupted: communicator aborted by the test"), e.getMessage());
            assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "abort ends the connect promptly");
        }
    }

    private static NcclException awaitError(List<NcclException> errors) {
        Deadline d = Deadline.afterMillis(10_000);
        while (errors.isEmpty() && !d.expired()) {
            LockSupport.parkNanos(1_000_000);
        }
        assertTrue(!errors.isEmpty(), "no async error within 10 s");
        NcclException e = errors.get(0);
        assertNotNull(e.getMessage());
        return e;
    }
}
