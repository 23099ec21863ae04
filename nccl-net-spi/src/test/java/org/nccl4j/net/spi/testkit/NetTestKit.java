package org.nccl4j.net.spi.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.nccl4j.net.spi.Comm;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetProperties;
import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.SendComm;

/**
 * The contract every {@link Net} must meet, as abstract JUnit 5 tests. A plugin's test
 * extends this class and implements {@link #createNet()}; it may override {@link #context()}
 * (parameters, e.g. which interface to use), {@link #device()}, {@link #timeout()} and
 * {@link #maxTransferSize()}.
 *
 * <p>Each test gets a fresh, initialised network and a shared arena for its buffers (host
 * memory, registered with {@link Net#PTR_HOST}). Send and receive sides run on two threads,
 * since a plugin's {@code test} on one side may need the other side to be polled too. Every
 * wait has a deadline ({@link RequestDriver}) and every test a timeout, so a broken plugin
 * fails rather than hangs.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class NetTestKit {
    /** One kibibyte. */
    protected static final long KIB = 1024;
    /** One mebibyte. */
    protected static final long MIB = 1024 * KIB;
    private static final byte CANARY = (byte) 0xA5;
    private static final AtomicInteger THREAD_IDS = new AtomicInteger();

    /** The network under test, initialised before each test. */
    protected Net net;
    /** Drives {@link #net}'s calls with {@link #timeout()}. */
    protected RequestDriver driver;
    /** Where each test allocates its buffers; closed after the test. */
    protected Arena arena;

    private ExecutorService threads;
    private final Deque<Comm> open = new ConcurrentLinkedDeque<>();

    /** For subclasses. */
    protected NetTestKit() {
    }

    /** @return a new, uninitialised instance of the network under test */
    protected abstract Net createNet();

    /** @return the context passed to {@link Net#init}; by default the environment's parameters */
    protected NetContext context() {
        return new TestNetContext(Map.of());
    }

    /** @return the device the tests use */
    protected int device() {
        return 0;
    }

    /** @return how long any single wait may take */
    protected Duration timeout() {
        return Duration.ofSeconds(60);
    }

    /** @return the largest message the transfer tests send; sizes above it are skipped */
    protected long maxTransferSize() {
        return 256 * MIB;
    }

    /**
     * Creates and initialises the network, an arena and the test's threads.
     *
     * @throws NetException if the network's {@code init} fails
     */
    @BeforeEach
    protected void setUpNet() throws NetException {
        threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "net-testkit-" + THREAD_IDS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        arena = Arena.ofShared();
        net = createNet();
        net.init(context());
        driver = new RequestDriver(net, timeout());
    }

    /**
     * Closes every endpoint the test left open, shuts the network down, then frees the buffers
     * (only if every close returned, so no plugin thread can still be using them).
     */
    @AfterEach
    protected void tearDownNet() {
        boolean clean = true;
        for (Comm c; (c = open.pollLast()) != null; ) {
            Comm comm = c;
            clean &= runBounded("close " + comm, () -> {
                closeComm(comm);
                return null;
            });
        }
        if (net != null) {
            clean &= runBounded("shutdown", () -> {
                net.shutdown();
                return null;
            });
        }
        threads.shutdownNow();
        if (clean) {
            arena.close();
        }
    }

    private boolean runBounded(String what, Callable<Void> action) {
        Future<Void> f = threads.submit(action);
        try {
            f.get(timeout().toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            f.cancel(true);
            System.err.println("[net-testkit] " + what + " did not return within " + timeout());
            return false;
        } catch (ExecutionException e) {
            // A close failing after the test's own checks is not a test failure; a hang is.
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void closeComm(Comm comm) throws NetException {
        if (comm instanceof SendComm s) {
            net.closeSend(s);
        } else if (comm instanceof RecvComm r) {
            net.closeRecv(r);
        }
    }

    // ------------------------------------------------------------------------------------
    // Helpers for subclasses

    /**
     * Opens a connection on {@link #device()} (listen, connect and accept on this thread, then
     * closeListen); both ends are closed after the test unless the test closes them.
     *
     * @return both ends
     * @throws NetException on failure
     */
    protected CommPair openPair() throws NetException {
        CommPair pair = driver.connect(device());
        open.add(pair.send());
        open.add(pair.recv());
        return pair;
    }

    /**
     * Closes the sending end of a pair now.
     *
     * @param pair the pair
     * @throws NetException on failure
     */
    protected void closeSend(CommPair pair) throws NetException {
        open.remove(pair.send());
        net.closeSend(pair.send());
    }

    /**
     * Closes the receiving end of a pair now.
     *
     * @param pair the pair
     * @throws NetException on failure
     */
    protected void closeRecv(CommPair pair) throws NetException {
        open.remove(pair.recv());
        net.closeRecv(pair.recv());
    }

    /**
     * @param size bytes
     * @return a native buffer of that size from the test's arena
     */
    protected MemorySegment allocate(long size) {
        return arena.allocate(size, 64);
    }

    /**
     * Registers host memory.
     *
     * @param comm    an endpoint
     * @param segment the buffer
     * @return its registration
     * @throws NetException on failure
     */
    protected MemoryHandle register(Comm comm, MemorySegment segment) throws NetException {
        return net.regMr(comm, segment, Net.PTR_HOST);
    }

    /**
     * Runs two actions on two threads and waits for both, with the timeout.
     *
     * @param sender   the sending side
     * @param receiver the receiving side
     * @return the two results, sender's first
     * @throws Exception what either side threw (the sender's first)
     */
    protected long[] onTwoThreads(Callable<Long> sender, Callable<Long> receiver) throws Exception {
        Future<Long> s = threads.submit(sender);
        Future<Long> r = threads.submit(receiver);
        long deadlineMillis = timeout().toMillis() * 2;
        return new long[] {await(s, "sender", deadlineMillis), await(r, "receiver", deadlineMillis)};
    }

    private static long await(Future<Long> f, String side, long millis) throws Exception {
        try {
            return f.get(millis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) {
                throw ex;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new AssertionError(side + " did not finish within " + millis + " ms", e);
        }
    }

    /**
     * Sends {@code src} whole over {@code pair} while receiving into {@code dst}, on two threads.
     *
     * @param pair the connection
     * @param src  the message
     * @param dst  the receive buffer (its size is the capacity)
     * @return the sizes the sender and the receiver saw
     * @throws Exception on failure
     */
    protected long[] exchange(CommPair pair, MemorySegment src, MemorySegment dst) throws Exception {
        MemoryHandle sh = register(pair.send(), src);
        MemoryHandle rh = register(pair.recv(), dst);
        long[] sizes = onTwoThreads(() -> driver.send(pair.send(), src, sh), () -> driver.receive(pair.recv(), dst, rh));
        net.deregMr(pair.send(), sh);
        net.deregMr(pair.recv(), rh);
        return sizes;
    }

    /**
     * Sends one patterned message of {@code size} bytes into a buffer of {@code capacity}
     * bytes and checks sizes, content, and that nothing past the message was written.
     *
     * @param pair     the connection
     * @param size     message size
     * @param capacity receive buffer size, at least {@code size}
     * @param seed     pattern seed
     * @throws Exception on failure
     */
    protected void checkedTransfer(CommPair pair, long size, long capacity, long seed) throws Exception {
        MemorySegment src = allocate(size);
        MemorySegment dst = allocate(capacity);
        TestPattern.fill(src, seed);
        dst.fill(CANARY);
        long[] sizes = exchange(pair, src, dst);
        assertEquals(size, sizes[0], "size reported to the sender");
        assertEquals(size, sizes[1], "size reported to the receiver (the sender's size)");
        TestPattern.assertSame("received data", src, dst, size);
        TestPattern.assertUntouched("receive buffer", dst, size, Math.min(capacity, size + 4096), CANARY);
    }

    // ------------------------------------------------------------------------------------
    // Initialisation and properties

    @Test
    void devicesAndProperties() throws NetException {
        assertNotNull(net.name());
        assertFalse(net.name().isEmpty(), "name");
        int n = net.devices();
        assertTrue(n >= 1, "devices() = " + n);
        assertTrue(device() < n, "device " + device() + " of " + n);
        assertTrue(net.maxRequests() >= Net.MAX_REQUESTS, "maxRequests() = " + net.maxRequests()
                + ", nccl4j keeps " + Net.MAX_REQUESTS + " in flight");
        for (int d = 0; d < n; d++) {
            NetProperties p = net.getProperties(d);
            assertNotNull(p.name(), "name of device " + d);
            assertFalse(p.name().isEmpty(), "name of device " + d);
            assertTrue((p.ptrSupport() & Net.PTR_HOST) != 0, "device " + d + " must support host memory: " + p);
            assertTrue(p.speed() > 0, "speed of device " + d + ": " + p);
            assertTrue(p.maxComms() > 0, "maxComms of device " + d + ": " + p);
            assertTrue(p.maxRecvs() >= 1, "maxRecvs of device " + d + ": " + p);
            assertTrue(p.latency() >= 0, "latency of device " + d + ": " + p);
        }
    }

    @Test
    void invalidDeviceIsRefused() throws NetException {
        int n = net.devices();
        byte[] handle = new byte[Net.HANDLE_MAXSIZE];
        assertThrows(NetException.class, () -> net.getProperties(-1));
        assertThrows(NetException.class, () -> net.getProperties(n));
        assertThrows(NetException.class, () -> net.listen(-1, handle));
        assertThrows(NetException.class, () -> net.listen(n, handle));
        var listen = net.listen(device(), handle);
        try {
            assertThrows(NetException.class, () -> net.connect(n, handle));
            assertThrows(NetException.class, () -> net.connect(-1, handle));
        } finally {
            net.closeListen(listen);
        }
    }

    // ------------------------------------------------------------------------------------
    // Connection set-up

    @Test
    void connectAndAcceptOnOneThread() throws Exception {
        CommPair pair = openPair();
        assertNotNull(pair.send());
        assertNotNull(pair.recv());
        checkedTransfer(pair, 1, 1, 1);
    }

    @Test
    void garbageHandleIsRefused() {
        byte[] garbage = new byte[Net.HANDLE_MAXSIZE];
        new Random(42).nextBytes(garbage);
        assertRefusedWithinTimeout("random handle", garbage);
        assertRefusedWithinTimeout("all-zero handle", new byte[Net.HANDLE_MAXSIZE]);
        assertRefusedWithinTimeout("4-byte handle", new byte[] {1, 2, 3, 4});
    }

    private void assertRefusedWithinTimeout(String what, byte[] handle) {
        NetException e = assertThrows(NetException.class,
                () -> driver.untilNonNull("connect with " + what, () -> net.connect(device(), handle)), what);
        assertNotNull(e.getMessage(), what);
    }

    @Test
    void connectionsInParallel() throws Exception {
        int pairs = 3;
        List<CommPair> list = new ArrayList<>();
        for (int i = 0; i < pairs; i++) {
            list.add(openPair());
        }
        List<Future<Long>> results = new ArrayList<>();
        for (int i = 0; i < pairs; i++) {
            CommPair pair = list.get(i);
            long seed = 100 + i;
            results.add(threads.submit(() -> {
                for (int m = 0; m < 4; m++) {
                    checkedTransfer(pair, 4 * MIB + m, 4 * MIB + m, seed * 10 + m);
                }
                return 0L;
            }));
        }
        for (Future<Long> f : results) {
            await(f, "parallel pair", timeout().toMillis() * 4);
        }
    }

    // ------------------------------------------------------------------------------------
    // Transfers

    /** @return message sizes for {@link #transfer(long)}: zero, tiny, powers of four and odd neighbours, up to 64 MiB */
    static LongStream transferSizes() {
        LongStream.Builder b = LongStream.builder();
        b.add(0).add(1).add(2).add(3).add(7);
        for (long p = 4; p <= 64 * MIB; p *= 4) {
            b.add(p);
            if (p >= 1024) {
                b.add(p + 1).add(p - 3);
            }
        }
        return b.build();
    }

    @ParameterizedTest(name = "{0} bytes")
    @MethodSource("transferSizes")
    void transfer(long size) throws Exception {
        Assumptions.assumeTrue(size <= maxTransferSize(), "larger than maxTransferSize()");
        checkedTransfer(openPair(), size, size, size * 31 + 7);
    }

    @Test
    void largestTransfer() throws Exception {
        checkedTransfer(openPair(), maxTransferSize(), maxTransferSize(), 256);
    }

    @Test
    void receiveBufferLargerThanMessage() throws Exception {
        CommPair pair = openPair();
        long capacity = 256 * KIB;
        for (long size : new long[] {0, 1, 1000, 65537, capacity - 1}) {
            checkedTransfer(pair, size, capacity, size + 5);
        }
    }

    @Test
    void zeroByteMessages() throws Exception {
        CommPair pair = openPair();
        for (int i = 0; i < 20; i++) {
            checkedTransfer(pair, 0, i % 2 == 0 ? 0 : 16, i);
        }
    }

    @Test
    void maxRequestsInFlightCompleteInOrder() throws Exception {
        CommPair pair = openPair();
        int n = net.maxRequests();
        MemorySegment[] src = new MemorySegment[n];
        MemorySegment[] dst = new MemorySegment[n];
        MemoryHandle[] sh = new MemoryHandle[n];
        MemoryHandle[] rh = new MemoryHandle[n];
        for (int i = 0; i < n; i++) {
            src[i] = allocate(1000L * (i + 1) + i * 7919L);
            dst[i] = allocate(src[i].byteSize() + 100);
            TestPattern.fill(src[i], 1000 + i);
            dst[i].fill(CANARY);
            sh[i] = register(pair.send(), src[i]);
            rh[i] = register(pair.recv(), dst[i]);
        }
        long[] done = onTwoThreads(() -> {
            Request[] reqs = new Request[n];
            for (int i = 0; i < n; i++) {
                int k = i;
                reqs[i] = driver.untilNonNull("isend " + k + " of " + n, () -> net.isend(pair.send(), src[k], sh[k]));
            }
            for (int i = 0; i < n; i++) {
                assertEquals(src[i].byteSize(), driver.complete("send " + i + " of " + n, reqs[i]), "send " + i);
            }
            return (long) n;
        }, () -> {
            Request[] reqs = new Request[n];
            for (int i = 0; i < n; i++) {
                int k = i;
                reqs[i] = driver.untilNonNull("irecv " + k + " of " + n, () -> net.irecv(pair.recv(), dst[k], rh[k]));
            }
            for (int i = 0; i < n; i++) {
                assertEquals(src[i].byteSize(), driver.complete("receive " + i + " of " + n, reqs[i]),
                        "receive " + i + " got the size of message " + i);
            }
            return (long) n;
        });
        assertEquals(n, done[0]);
        for (int i = 0; i < n; i++) {
            TestPattern.assertSame("message " + i, src[i], dst[i], src[i].byteSize());
            TestPattern.assertUntouched("buffer " + i, dst[i], src[i].byteSize(), dst[i].byteSize(), CANARY);
        }
    }

    @Test
    void sendPostedBeforeReceive() throws Exception {
        CommPair pair = openPair();
        MemorySegment src = allocate(MIB + 3);
        MemorySegment dst = allocate(MIB + 3);
        TestPattern.fill(src, 77);
        MemoryHandle sh = register(pair.send(), src);
        MemoryHandle rh = register(pair.recv(), dst);
        CountDownLatch firstSendAttempt = new CountDownLatch(1);
        long[] sizes = onTwoThreads(() -> {
            // A null answer means "the peer has not posted its receive yet": retry.
            Request r = driver.untilNonNull("isend before the receive is posted", () -> {
                Request req = net.isend(pair.send(), src, sh);
                firstSendAttempt.countDown();
                return req;
            });
            return driver.complete("send posted first", r);
        }, () -> {
            assertTrue(firstSendAttempt.await(timeout().toMillis(), TimeUnit.MILLISECONDS));
            Thread.sleep(50);
            return driver.receive(pair.recv(), dst, rh);
        });
        assertEquals(src.byteSize(), sizes[0]);
        assertEquals(src.byteSize(), sizes[1]);
        TestPattern.assertSame("late receive", src, dst, src.byteSize());
    }

    @Test
    void receivePostedBeforeSend() throws Exception {
        CommPair pair = openPair();
        MemorySegment src = allocate(3 * MIB);
        MemorySegment dst = allocate(3 * MIB);
        TestPattern.fill(src, 78);
        MemoryHandle sh = register(pair.send(), src);
        MemoryHandle rh = register(pair.recv(), dst);
        CountDownLatch polled = new CountDownLatch(1);
        long[] sizes = onTwoThreads(() -> {
            assertTrue(polled.await(timeout().toMillis(), TimeUnit.MILLISECONDS));
            return driver.send(pair.send(), src, sh);
        }, () -> {
            Request r = driver.untilNonNull("irecv", () -> net.irecv(pair.recv(), dst, rh));
            for (int i = 0; i < 100; i++) {
                assertEquals(-1, net.test(r), "a receive cannot complete before anything was sent");
            }
            polled.countDown();
            return driver.complete("receive posted first", r);
        });
        assertEquals(src.byteSize(), sizes[1]);
        TestPattern.assertSame("early receive", src, dst, src.byteSize());
    }

    @Test
    void messagesOfManySizesOnOneConnection() throws Exception {
        CommPair pair = openPair();
        long[] sizes = {0, 1, 65536, 3, MIB, 65537, 0, 7, 4 * MIB + 1, 12345, 131072, 131071, 2 * MIB - 1, 1, 0,
            65535, 8 * MIB, 5, 300_000, 64, 999_999, 0, 2, 3 * MIB + 17};
        int n = sizes.length;
        long[] offsets = new long[n + 1];
        long[] recvOffsets = new long[n + 1];
        for (int i = 0; i < n; i++) {
            offsets[i + 1] = offsets[i] + sizes[i];
            recvOffsets[i + 1] = recvOffsets[i] + sizes[i] + 64;
        }
        MemorySegment src = allocate(offsets[n]);
        MemorySegment dst = allocate(recvOffsets[n]);
        TestPattern.fill(src, 4242);
        dst.fill(CANARY);
        MemoryHandle sh = register(pair.send(), src);
        MemoryHandle rh = register(pair.recv(), dst);
        int window = Math.min(net.maxRequests(), Net.MAX_REQUESTS);
        long[] result = onTwoThreads(
                () -> pipeline(n, window, i -> net.isend(pair.send(), src.asSlice(offsets[i], sizes[i]), sh), sizes),
                () -> pipeline(n, window,
                        i -> net.irecv(pair.recv(), dst.asSlice(recvOffsets[i], sizes[i] + 64), rh), sizes));
        assertEquals(n, result[0]);
        assertEquals(n, result[1]);
        for (int i = 0; i < n; i++) {
            TestPattern.assertSame("message " + i, src.asSlice(offsets[i], sizes[i]), dst.asSlice(recvOffsets[i], sizes[i]),
                    sizes[i]);
            TestPattern.assertUntouched("slack after message " + i, dst, recvOffsets[i] + sizes[i], recvOffsets[i + 1], CANARY);
        }
    }

    /** Posts messages keeping up to {@code window} in flight, tests the oldest, checks each reported size. */
    private long pipeline(int n, int window, PostCall post, long[] sizes) throws NetException {
        Deque<Request> inFlight = new ArrayDeque<>();
        int posted = 0;
        int completed = 0;
        long deadline = System.nanoTime() + timeout().toNanos() * 2;
        int idle = 0;
        while (completed < n) {
            if (System.nanoTime() - deadline > 0) {
                fail("pipeline stalled: " + posted + " posted, " + completed + " completed of " + n);
            }
            if (posted < n && inFlight.size() < window) {
                Request r = post.post(posted);
                if (r != null) {
                    inFlight.add(r);
                    posted++;
                    idle = 0;
                    continue;
                }
            }
            if (!inFlight.isEmpty()) {
                long size = net.test(inFlight.peekFirst());
                if (size >= 0) {
                    inFlight.pollFirst();
                    assertEquals(sizes[completed], size, "size of message " + completed);
                    completed++;
                    idle = 0;
                    continue;
                }
            }
            // Back off so the plugin's own threads get the CPU on small machines.
            if (++idle < 64) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(10_000);
            }
        }
        return n;
    }

    @FunctionalInterface
    private interface PostCall {
        Request post(int index) throws NetException;
    }

    // ------------------------------------------------------------------------------------
    // Memory registration

    @Test
    void unsupportedMemoryTypeIsRefused() throws NetException {
        CommPair pair = openPair();
        MemorySegment buf = allocate(4096);
        int support = net.getProperties(device()).ptrSupport();
        for (Comm comm : new Comm[] {pair.send(), pair.recv()}) {
            MemoryHandle h = net.regMr(comm, buf, Net.PTR_HOST);
            net.deregMr(comm, h);
            for (int type : new int[] {Net.PTR_CUDA, Net.PTR_DMABUF}) {
                if ((support & type) == 0) {
                    assertThrows(NetException.class, () -> net.regMr(comm, buf, type),
                            "type 0x" + Integer.toHexString(type) + " is not in ptrSupport 0x" + Integer.toHexString(support));
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------
    // Closing

    @Test
    void closeWhileIdle() throws Exception {
        CommPair pair = openPair();
        checkedTransfer(pair, 1000, 1000, 9);
        MemorySegment buf = allocate(16);
        MemoryHandle sh = register(pair.send(), buf);
        MemoryHandle rh = register(pair.recv(), buf);
        closeSend(pair);
        closeRecv(pair);
        assertThrows(NetException.class, () -> net.isend(pair.send(), buf, sh), "isend on a closed send comm");
        assertThrows(NetException.class, () -> net.irecv(pair.recv(), buf, rh), "irecv on a closed recv comm");
    }

    @Test
    void closeSendWhileBusy() throws Exception {
        CommPair pair = openPair();
        long size = 64 * MIB;
        MemorySegment src = allocate(size);
        MemorySegment dst = allocate(size);
        MemoryHandle sh = register(pair.send(), src);
        MemoryHandle rh = register(pair.recv(), dst);
        Request send = driver.untilNonNull("isend", () -> net.isend(pair.send(), src, sh));
        Request recv = driver.untilNonNull("irecv", () -> net.irecv(pair.recv(), dst, rh));
        boolean sendDone = net.test(send) >= 0;
        boolean recvDone = net.test(recv) >= 0;
        closeSend(pair);
        // The send request died with its comm: testing it must not report "pending" forever.
        if (!sendDone) {
            endsWithinTimeout("test of a send request whose comm was closed", send);
        }
        // The receiver either got everything before the close or sees the peer go away.
        if (!recvDone) {
            endsWithinTimeout("receive from a peer that closed mid-message", recv);
        }
        assertThrows(NetException.class, () -> net.isend(pair.send(), src, sh), "isend after closeSend");
    }

    @Test
    void closeRecvWhileBusy() throws Exception {
        CommPair pair = openPair();
        long size = 64 * MIB;
        MemorySegment src = allocate(size);
        MemorySegment dst = allocate(size);
        MemoryHandle sh = register(pair.send(), src);
        MemoryHandle rh = register(pair.recv(), dst);
        Request send = driver.untilNonNull("isend", () -> net.isend(pair.send(), src, sh));
        Request recv = driver.untilNonNull("irecv", () -> net.irecv(pair.recv(), dst, rh));
        boolean recvDone = net.test(recv) >= 0;
        boolean sendDone = net.test(send) >= 0;
        closeRecv(pair);
        if (!recvDone) {
            endsWithinTimeout("test of a receive request whose comm was closed", recv);
        }
        // 64 MiB cannot all sit in socket buffers: the sender must learn that the receiver left.
        if (!sendDone) {
            endsWithinTimeout("send to a peer that closed mid-message", send);
        }
        assertThrows(NetException.class, () -> net.irecv(pair.recv(), dst, rh), "irecv after closeRecv");
    }

    /** Polls until the request completes or fails; only "still pending at the deadline" is an error. */
    private void endsWithinTimeout(String what, Request request) {
        try {
            driver.complete(what, request);
        } catch (NetException expected) {
            assertNotNull(expected.kind(), what);
        }
    }
}
