package org.nccl4j.core.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.conn.ConnAllocator;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.wait.Deadline;
import org.nccl4j.net.spi.Comm;
import org.nccl4j.net.spi.ListenComm;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetProperties;
import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.SendComm;

/**
 * NET connections with GPU Direct RDMA, on the host: "device" memory is host memory from an
 * allocator of its own, and the network ({@link DeviceMemoryNet}, over {@link LoopbackNet})
 * takes it as {@code NCCL_PTR_CUDA}, counting registrations and flushes. What a GPU run cannot
 * show, this does: where each buffer lies, how each is registered, that Simple receives are
 * flushed before the receiver sees them, and that an LL128 step in device memory is sent on
 * the kernel's tail alone (the proxy cannot read its flags there).
 */
class NetGdrTest {
    private static final NetGdr BOTH = new NetGdr(new boolean[] {true}, new boolean[] {true});

    /** "Device" memory: host memory the test can tell apart. */
    private static final class Memory implements ConnAllocator {
        final Arena arena = Arena.ofShared();
        final List<MemorySegment> host = new CopyOnWriteArrayList<>();
        final List<MemorySegment> device = new CopyOnWriteArrayList<>();

        @Override
        public MemorySegment allocate(long bytes, long alignment) {
            MemorySegment m = arena.allocate(bytes, alignment);
            host.add(m);
            return m;
        }

        @Override
        public MemorySegment allocateDevice(long bytes) {
            MemorySegment m = arena.allocate(bytes, 4096);
            device.add(m);
            return m;
        }
    }

    /** A network that takes device memory: registrations by type, flushes that complete on their second test. */
    private static final class DeviceMemoryNet implements Net {
        final LoopbackNet net = new LoopbackNet(3, 2);
        final List<String> registrations = new CopyOnWriteArrayList<>();
        final AtomicInteger deregistrations = new AtomicInteger();
        final AtomicInteger flushes = new AtomicInteger();
        final List<Long> flushedBytes = new CopyOnWriteArrayList<>();
        /** The send ends (the loopback's ends are both kinds of comm). */
        final Set<Comm> senders = Collections.newSetFromMap(Collections.synchronizedMap(new IdentityHashMap<>()));

        private static final class Flush implements Request {
            int tests;
        }

        /** A registration of one region: data posted with it must lie inside. */
        private record Handle(MemoryHandle inner, MemorySegment region) implements MemoryHandle {
            MemoryHandle covering(MemorySegment data) throws NetException {
                if (data.address() < region.address()
                        || data.address() + data.byteSize() > region.address() + region.byteSize()) {
                    throw new NetException(NetException.Kind.INTERNAL, "data posted with another region's handle");
                }
                return inner;
            }
        }

        @Override
        public String name() {
            return net.name();
        }

        @Override
        public void init(NetContext context) throws NetException {
            net.init(context);
        }

        @Override
        public int devices() throws NetException {
            return 1;
        }

        @Override
        public NetProperties getProperties(int dev) throws NetException {
            return net.getProperties(dev);
        }

        @Override
        public ListenComm listen(int dev, byte[] handle) throws NetException {
            return net.listen(dev, handle);
        }

        @Override
        public SendComm connect(int dev, byte[] handle) throws NetException {
            SendComm c = net.connect(dev, handle);
            if (c != null) {
                senders.add(c);
            }
            return c;
        }

        @Override
        public RecvComm accept(ListenComm listenComm) throws NetException {
            return net.accept(listenComm);
        }

        @Override
        public MemoryHandle regMr(Comm comm, MemorySegment data, int type) throws NetException {
            registrations.add((senders.contains(comm) ? "send " : "recv ") + (type == PTR_CUDA ? "CUDA" : "HOST"));
            return new Handle(net.regMr(comm, data, PTR_HOST), data);
        }

        @Override
        public void deregMr(Comm comm, MemoryHandle handle) throws NetException {
            deregistrations.incrementAndGet();
            net.deregMr(comm, ((Handle) handle).inner());
        }

        @Override
        public Request isend(SendComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
            return net.isend(comm, data, ((Handle) handle).covering(data));
        }

        @Override
        public Request irecv(RecvComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
            return net.irecv(comm, data, ((Handle) handle).covering(data));
        }

        @Override
        public Request iflush(RecvComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
            ((Handle) handle).covering(data);
            flushes.incrementAndGet();
            flushedBytes.add(data.byteSize());
            return new Flush();
        }

        @Override
        public long test(Request request) throws NetException {
            if (request instanceof Flush f) {
                return ++f.tests < 2 ? -1 : 0;
            }
            return net.test(request);
        }

        @Override
        public void closeSend(SendComm comm) throws NetException {
            net.closeSend(comm);
        }

        @Override
        public void closeRecv(RecvComm comm) throws NetException {
            net.closeRecv(comm);
        }

        @Override
        public void closeListen(ListenComm comm) throws NetException {
            net.closeListen(comm);
        }

        @Override
        public int maxRequests() {
            return net.maxRequests();
        }
    }

    private static boolean within(List<MemorySegment> given, MemorySegment s) {
        return given.stream().anyMatch(g -> s.address() >= g.address()
                && s.address() + s.byteSize() <= g.address() + g.byteSize());
    }

    @Test
    void buffersLieInDeviceMemoryAsNcclPlacesThemAndStepsCross() throws Exception {
        Memory memory = new Memory();
        DeviceMemoryNet net = new DeviceMemoryNet();
        try (memory.arena; NetTransportTest.TwoRanks r = new NetTransportTest.TwoRanks(net,
                StepKit.config(Map.of()), memory, BOTH)) {
            Conn[] c = r.connect(0);
            assertEquals("Channel 00 : 0[1000] -> 1[2000] [send] via NET/Loopback/0/GDRDMA", c[0].description());
            assertEquals("Channel 00 : 0[1000] -> 1[2000] [receive] via NET/Loopback/0/GDRDMA", c[1].description());
            // NCCL's netSendSetup: LL in host memory (the proxy reads its flags), LL128 and Simple in
            // device memory; netRecvSetup: everything in device memory. Headers stay in host memory.
            assertTrue(within(memory.host, c[0].buff(Protocol.LL)), "send LL in host memory");
            assertTrue(within(memory.device, c[0].buff(Protocol.LL128)), "send LL128 in device memory");
            assertTrue(within(memory.device, c[0].buff(Protocol.SIMPLE)), "send Simple in device memory");
            for (Protocol p : Protocol.values()) {
                assertTrue(within(memory.device, c[1].buff(p)), "receive " + p + " in device memory");
            }
            for (Conn conn : c) {
                assertTrue(within(memory.host, conn.publishHeader()) && within(memory.host, conn.waitHeader()),
                        conn + ": headers in host memory");
            }
            assertEquals(List.of("send HOST", "send CUDA", "recv CUDA"), net.registrations);

            long steps = 300;
            NetTransportTest.stream(c[0], c[1], steps);
            long nonEmpty = 0;
            for (long s = 0; s < steps; s++) {
                nonEmpty += StepKit.size(s, c[0].stepSize()) > 0 ? 1 : 0;
            }
            assertEquals(nonEmpty, net.flushes.get(), "one flush per non-empty Simple step received into device memory");
            for (long s = 0, k = 0; s < steps; s++) {
                int size = StepKit.size(s, c[0].stepSize());
                if (size > 0) {
                    assertEquals(size, net.flushedBytes.get((int) k++), "step " + s + " flushed over its received bytes");
                }
            }

            ll128WithoutFlags(c[0], c[1], 20);
            assertEquals(List.of(), r.errors0);
            assertEquals(List.of(), r.errors1);
            c[0].close();
            c[1].close();
            assertEquals(3, net.deregistrations.get(), "every registration released");
        }
    }

    /**
     * LL128 steps whose lines carry no flag, published by the tail alone as the kernel does after
     * them: a proxy that waited for flags (as it must in host memory) would never send them.
     */
    private static void ll128WithoutFlags(Conn send, Conn recv, int steps) throws Exception {
        int stepSize = send.stepSize(Protocol.LL128);
        Deadline d = Deadline.afterMillis(30_000);
        List<byte[]> sent = new ArrayList<>();
        List<byte[]> got = new ArrayList<>();
        StepKit.concurrently(30_000, () -> {
            for (int k = 0; k < steps; k++) {
                long s = send.step();
                StepKit.await(send, send.waitHeader(), s + 1 - ConnMem.STEPS, d);
                send.postSend(s, Protocol.LL128, stepSize);
                MemorySegment slot = send.slot(Protocol.LL128, s);
                byte[] b = new byte[stepSize];
                for (int i = 0; i < stepSize; i++) {
                    b[i] = StepKit.pattern(s, i);
                }
                MemorySegment.copy(b, 0, slot, ValueLayout.JAVA_BYTE, 0, stepSize);
                sent.add(b);
                send.publish(s + 1);
                send.step(s + 1);
            }
            return null;
        }, () -> {
            for (int k = 0; k < steps; k++) {
                long s = recv.step();
                recv.announce(s + 1, Protocol.LL128);
                StepKit.await(recv, recv.waitHeader(), s + 1, d);
                got.add(recv.slot(Protocol.LL128, s).toArray(ValueLayout.JAVA_BYTE));
                recv.publish(s + 1);
                recv.step(s + 1);
            }
            return null;
        });
        for (int k = 0; k < steps; k++) {
            assertArrayEquals(sent.get(k), got.get(k), "LL128 step " + k);
        }
    }
}
