package org.nccl4j.net.ext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.nccl4j.net.spi.Comm;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.SendComm;
import org.nccl4j.net.spi.testkit.CommPair;
import org.nccl4j.net.spi.testkit.RequestDriver;
import org.nccl4j.net.spi.testkit.TestNetContext;
import org.nccl4j.net.spi.testkit.TestPattern;

/**
 * The native plugin adapter under random calls, as a buggy caller or a hostile one would make
 * them: comms, memory handles and requests of this net, of another plugin, made up, closed,
 * deregistered, already completed or null; buffers on the heap, of size 0, outside their
 * registration, larger than the plugin takes; memory types that do not exist; posts beyond
 * the requests a comm may have in flight; closes with requests in flight. Every call must return
 * or throw a {@link NetException}, never anything else and never crash the JVM (the plugin is
 * real C, {@code libnccl-net-fixture-v8.so}, which trusts what it is given); and between them,
 * on fresh connections, messages must still arrive byte for byte.
 * {@code -Dnccl4j.fuzz.inputs=N} (default 2,000) and {@code -Dnccl4j.fuzz.seed=S} (printed).
 */
class NativeNetFuzzTest {
    private static final int INPUTS = Integer.getInteger("nccl4j.fuzz.inputs", 2000);
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Net net;
    private Net other;
    private RequestDriver driver;
    private Arena arena;
    private Random rnd;
    private final List<CommPair> pairs = new ArrayList<>();
    private final List<Comm> closed = new ArrayList<>();
    /** Registrations that succeeded (later maybe deregistered, or their comm closed). */
    private final List<Reg> regs = new ArrayList<>();
    private final java.util.Set<MemoryHandle> deregistered = new java.util.HashSet<>();
    private final List<Request> requests = new ArrayList<>();
    private final List<MemorySegment> buffers = new ArrayList<>();
    private final Map<String, Integer> outcomes = new TreeMap<>();
    private CommPair foreign;
    private MemoryHandle foreignHandle;

    @Test
    void everyCallAnswersOrThrowsNetExceptionAndMessagesStillArriveIntact() throws Exception {
        long seed = Long.getLong("nccl4j.fuzz.seed", System.nanoTime());
        System.out.println("NativeNetFuzzTest seed " + seed + " inputs " + INPUTS);
        rnd = new Random(seed);
        arena = Arena.ofShared();
        net = new ExtNetProvider(Fixtures.library("fixture-v8")).create();
        net.init(new TestNetContext(Map.of()));
        other = new ExtNetProvider(Fixtures.library("fixture-v4")).create();
        other.init(new TestNetContext(Map.of()));
        driver = new RequestDriver(net, TIMEOUT);
        try {
            foreign = new RequestDriver(other, TIMEOUT).connect(0);
            foreignHandle = other.regMr(foreign.send(), arena.allocate(4096, 64), Net.PTR_HOST);
            for (int i = 0; i < 3; i++) {
                pairs.add(driver.connect(0));
            }
            for (int size : new int[] {0, 1, 64, 4096, 65536}) {
                buffers.add(arena.allocate(size, 64));
            }
            for (int i = 0; i < INPUTS; i++) {
                step(seed, i);
                if (i % 500 == 499) {
                    transfersStillWork(seed, i);
                }
            }
            transfersStillWork(seed, INPUTS);
        } finally {
            System.out.println("NativeNetFuzzTest outcomes " + outcomes);
            // The adapter's close of every live comm (requests in flight included), then the plugins'.
            for (CommPair p : pairs) {
                quietly(() -> net.closeSend(p.send()));
                quietly(() -> net.closeRecv(p.recv()));
            }
            quietly(() -> other.closeSend(foreign.send()));
            quietly(() -> other.closeRecv(foreign.recv()));
            net.shutdown();
            other.shutdown();
        }
        assertTrue(outcomes.keySet().stream().anyMatch(k -> k.endsWith(": ok")), "no call succeeded: " + outcomes);
        assertTrue(outcomes.keySet().stream().anyMatch(k -> k.contains("INVALID")), "no call was refused: " + outcomes);
    }

    @Test
    void aRegistrationInUseIsNotDeregistered() throws Exception {
        arena = Arena.ofShared();
        net = new ExtNetProvider(Fixtures.library("fixture-v8")).create();
        net.init(new TestNetContext(Map.of()));
        driver = new RequestDriver(net, TIMEOUT);
        CommPair p = driver.connect(0);
        try {
            MemorySegment buf = arena.allocate(4096, 64);
            MemoryHandle rh = net.regMr(p.recv(), buf, Net.PTR_HOST);
            Request r = driver.untilNonNull("irecv", () -> net.irecv(p.recv(), buf, rh));
            NetException e = org.junit.jupiter.api.Assertions.assertThrows(NetException.class, () -> net.deregMr(p.recv(), rh));
            assertEquals(NetException.Kind.INVALID_USAGE, e.kind(), e.getMessage());
            assertTrue(e.getMessage().contains("still in flight"), e.getMessage());
            // Still registered: the receive completes into it, then it deregisters.
            MemorySegment src = arena.allocate(4096, 64);
            TestPattern.fill(src, 7);
            MemoryHandle sh = net.regMr(p.send(), src, Net.PTR_HOST);
            assertEquals(4096, driver.send(p.send(), src, sh));
            assertEquals(4096, driver.complete("irecv", r));
            TestPattern.assertSame("received", src, buf, 4096);
            net.deregMr(p.recv(), rh);
            net.deregMr(p.send(), sh);
        } finally {
            net.closeSend(p.send());
            net.closeRecv(p.recv());
            net.shutdown();
        }
    }

    /** One random call with random arguments. */
    private void step(long seed, int i) {
        // Closes are rare (they reset a connection's state); the rest alike.
        int op = rnd.nextInt(50) == 0 ? 6 : new int[] {0, 1, 2, 3, 4, 5, 7}[rnd.nextInt(7)];
        String name = switch (op) {
            case 0 -> "regMr";
            case 1 -> "deregMr";
            case 2 -> "isend";
            case 3 -> "irecv";
            case 4 -> "iflush";
            case 5 -> "test";
            case 6 -> "close";
            default -> "post many";
        };
        String outcome;
        try {
            switch (op) {
                case 0 -> {
                    Comm c = sane() ? liveComm() : anyComm();
                    MemorySegment seg = sane() ? buffers.get(rnd.nextInt(buffers.size())) : anySegment();
                    MemoryHandle h = net.regMr(c, seg, sane() ? Net.PTR_HOST : anyType());
                    if (owned(seg)) {
                        regs.add(new Reg(c, seg, h));
                    } else {
                        // Past our buffers (a raw address reinterpreted larger): no plugin can tell, so a
                        // receive into it would write over whatever lies there; never post on it.
                        quietly(() -> net.deregMr(c, h));
                    }
                }
                case 1 -> {
                    Reg r = regs.isEmpty() || !sane() ? null : regs.get(rnd.nextInt(regs.size()));
                    net.deregMr(r != null ? r.comm() : anyComm(), r != null ? r.handle() : anyHandle());
                    if (r != null) {
                        deregistered.add(r.handle());
                    }
                }
                case 2 -> {
                    Reg r = saneReg(SendComm.class);
                    keep(r != null ? net.isend((SendComm) r.comm(), inside(r.seg()), r.handle())
                            : net.isend(anySendComm(), anySegment(), anyHandle()));
                }
                case 3, 4 -> {
                    Reg r = saneReg(RecvComm.class);
                    RecvComm c = r != null ? (RecvComm) r.comm() : anyRecvComm();
                    MemorySegment seg = r != null ? inside(r.seg()) : anySegment();
                    MemoryHandle h = r != null ? r.handle() : anyHandle();
                    keep(op == 3 ? net.irecv(c, seg, h) : net.iflush(c, seg, h));
                }
                case 5 -> net.test(anyRequest());
                case 6 -> closeOne();
                default -> {
                    // Past the requests a comm may have in flight, with a registration that fits.
                    CommPair p = pairs.get(rnd.nextInt(pairs.size()));
                    MemorySegment b = buffers.get(rnd.nextInt(buffers.size()));
                    MemoryHandle h = net.regMr(p.send(), b, Net.PTR_HOST);
                    regs.add(new Reg(p.send(), b, h));
                    for (int k = 0; k <= Net.MAX_REQUESTS; k++) {
                        keep(net.isend(p.send(), b, h));
                    }
                }
            }
            outcome = "ok";
        } catch (NetException e) {
            outcome = e.kind().toString();
        } catch (RuntimeException | Error e) {
            throw new AssertionError("seed " + seed + " input " + i + ": " + name + " threw " + e, e);
        }
        outcomes.merge(name + ": " + outcome, 1, Integer::sum);
    }

    /** Opens a fresh connection and sends messages of several sizes over it: every byte must arrive. */
    private void transfersStillWork(long seed, int i) throws Exception {
        CommPair p = driver.connect(0);
        try {
            for (int size : new int[] {0, 1, 1000, 65536, 1 << 20}) {
                MemorySegment src = arena.allocate(Math.max(size, 1), 64).asSlice(0, size);
                MemorySegment dst = arena.allocate(Math.max(size, 1), 64).asSlice(0, size);
                TestPattern.fill(src, seed + size);
                MemoryHandle sh = net.regMr(p.send(), src, Net.PTR_HOST);
                MemoryHandle rh = net.regMr(p.recv(), dst, Net.PTR_HOST);
                Request r = driver.untilNonNull("irecv", () -> net.irecv(p.recv(), dst, rh));
                Request s = driver.untilNonNull("isend", () -> net.isend(p.send(), src, sh));
                assertEquals(size, driver.complete("receive after input " + i, r), "seed " + seed);
                assertEquals(size, driver.complete("send after input " + i, s), "seed " + seed);
                TestPattern.assertSame("seed " + seed + " after input " + i + ", " + size + " bytes", src, dst, size);
                net.deregMr(p.send(), sh);
                net.deregMr(p.recv(), rh);
            }
        } finally {
            net.closeSend(p.send());
            net.closeRecv(p.recv());
        }
    }

    private void keep(Request r) {
        if (r != null) {
            requests.add(r);
        }
    }

    /** Closes one end of a connection (it stays around for calls after the close) and replaces the pair. */
    private void closeOne() throws NetException {
        int k = rnd.nextInt(pairs.size());
        CommPair p = pairs.get(k);
        Comm c = rnd.nextBoolean() ? p.send() : p.recv();
        closed.add(c);
        pairs.set(k, driver.connect(0));
        if (c instanceof SendComm s) {
            net.closeSend(s);
            quietly(() -> net.closeRecv(p.recv()));
        } else {
            net.closeRecv((RecvComm) c);
            quietly(() -> net.closeSend(p.send()));
        }
    }

    private Comm anyComm() {
        return rnd.nextBoolean() ? anySendComm() : anyRecvComm();
    }

    private SendComm anySendComm() {
        return pick(() -> pairs.get(rnd.nextInt(pairs.size())).send(), () -> foreign.send(), () -> null,
                () -> new SendComm() { }, () -> closed.isEmpty() || !(closed.get(0) instanceof SendComm s) ? null : s);
    }

    private RecvComm anyRecvComm() {
        return pick(() -> pairs.get(rnd.nextInt(pairs.size())).recv(), () -> foreign.recv(), () -> null,
                () -> new RecvComm() { }, () -> closed.isEmpty() || !(closed.getLast() instanceof RecvComm r) ? null : r);
    }

    private record Reg(Comm comm, MemorySegment seg, MemoryHandle handle) {
    }

    /** @return whether the segment lies inside one of the buffers this test allocated */
    private boolean owned(MemorySegment seg) {
        return buffers.stream().anyMatch(b -> seg.address() >= b.address()
                && seg.address() + seg.byteSize() <= b.address() + b.byteSize());
    }

    /** @return mostly true: most calls are sane but for one argument, to reach the states behind the checks */
    private boolean sane() {
        return rnd.nextInt(4) != 0;
    }

    private Comm liveComm() {
        CommPair p = pairs.get(rnd.nextInt(pairs.size()));
        return rnd.nextBoolean() ? p.send() : p.recv();
    }

    /** @return a registration on a comm of that kind (live, closed or deregistered alike), or null: junk arguments */
    private Reg saneReg(Class<? extends Comm> kind) {
        if (!sane()) {
            return null;
        }
        // Mostly registrations still usable: posts then get in flight, to be tested, closed, deregistered under.
        boolean usable = rnd.nextInt(5) != 0;
        List<Reg> fit = regs.stream().filter(r -> kind.isInstance(r.comm()))
                .filter(r -> !usable || (!closed.contains(r.comm()) && !deregistered.contains(r.handle()))).toList();
        return fit.isEmpty() ? null : fit.get(rnd.nextInt(fit.size()));
    }

    /** @return the buffer or a part of it */
    private MemorySegment inside(MemorySegment seg) {
        long n = seg.byteSize();
        if (n < 2 || rnd.nextBoolean()) {
            return seg;
        }
        long off = rnd.nextLong(n);
        return seg.asSlice(off, rnd.nextLong(n - off + 1));
    }

    private MemoryHandle anyHandle() {
        return pick(() -> regs.isEmpty() ? null : regs.get(rnd.nextInt(regs.size())).handle(),
                () -> regs.isEmpty() ? null : regs.get(rnd.nextInt(regs.size())).handle(),
                () -> foreignHandle, () -> null, () -> new MemoryHandle() { });
    }

    private Request anyRequest() {
        return pick(() -> requests.isEmpty() ? null : requests.get(rnd.nextInt(requests.size())),
                () -> requests.isEmpty() ? null : requests.get(rnd.nextInt(requests.size())),
                () -> null, () -> new Request() { });
    }

    private MemorySegment anySegment() {
        MemorySegment b = buffers.get(rnd.nextInt(buffers.size()));
        return pick(() -> b, () -> b,
                () -> b.byteSize() < 2 ? b : b.asSlice(rnd.nextInt((int) b.byteSize() / 2), rnd.nextInt((int) b.byteSize() / 2)),
                () -> MemorySegment.ofArray(new byte[1 + rnd.nextInt(100)]), () -> null,
                () -> MemorySegment.ofAddress(b.address()).reinterpret(b.byteSize() + 1 + rnd.nextInt(4096)),
                () -> MemorySegment.ofAddress(b.address()).reinterpret(1L << (31 + rnd.nextInt(4))));
    }

    private int anyType() {
        int[] types = {Net.PTR_HOST, Net.PTR_HOST, Net.PTR_CUDA, Net.PTR_DMABUF, 0, 3, -1, rnd.nextInt()};
        return types[rnd.nextInt(types.length)];
    }

    @SafeVarargs
    private <T> T pick(Supplier<T>... choices) {
        return choices[rnd.nextInt(choices.length)].get();
    }

    private interface Call {
        void run() throws NetException;
    }

    private static void quietly(Call c) {
        try {
            c.run();
        } catch (NetException e) {
            // closing what a fuzzed call may already have closed
        }
    }
}
