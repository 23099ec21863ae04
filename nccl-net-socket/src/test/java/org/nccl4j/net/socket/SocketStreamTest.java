package org.nccl4j.net.socket;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.testkit.CommPair;
import org.nccl4j.net.spi.testkit.RequestDriver;
import org.nccl4j.net.spi.testkit.TestNetContext;
import org.nccl4j.net.spi.testkit.TestPattern;

/**
 * A stream of messages on loopback as nccl4j's proxy drives it: a window of up to 8 requests in
 * flight on each side, the oldest tested first, every slot reused once its request is done.
 * Message sizes cycle from 0 bytes to 4 MiB + 1 (below, at and above the 64 KiB split into
 * pieces), each message has its own pattern, and every receive is checked byte for byte (and
 * for nothing written past the message) before its slot is reused. Socket layouts: NCCL's
 * default (control connection only), 2 threads x 4 sockets, and NIO with 3 x 1.
 * Throughput is nccl-bench's {@code SocketNetBench}.
 */
class SocketStreamTest {
    private static final int WINDOW = 8;
    private static final long[] SIZES = {0, 1, 4095, 65536, 65537, 300_007, (1 << 20) + 3, (4 << 20) + 1};
    private static final int MESSAGES = 3 * SIZES.length;
    private static final long SLOT = (4 << 20) + 64;
    private static final byte CANARY = (byte) 0xA5;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"0x1", "2x4", "nio:3x1"})
    void everyMessageArrivesExactlyWithEightInFlight(String layout) throws Exception {
        boolean nio = layout.startsWith("nio:");
        String[] tn = (nio ? layout.substring(4) : layout).split("x");
        SocketNet net = new SocketNet(nio ? NettyTransport.NIO : null);
        net.init(new TestNetContext(Map.of("NCCL_SOCKET_IFNAME", "lo", "NCCL_SOCKET_NTHREADS", tn[0],
                "NCCL_NSOCKS_PERTHREAD", tn[1])));
        ExecutorService sides = Executors.newFixedThreadPool(2);
        try (Arena arena = Arena.ofShared()) {
            RequestDriver driver = new RequestDriver(net, Duration.ofSeconds(60));
            CommPair pair = driver.connect(0);
            MemorySegment src = arena.allocate(SLOT * WINDOW, 4096);
            MemorySegment dst = arena.allocate(SLOT * WINDOW, 4096);
            MemorySegment expected = arena.allocate(SLOT, 4096);
            dst.fill(CANARY);
            MemoryHandle sh = net.regMr(pair.send(), src, SocketNet.PTR_HOST);
            MemoryHandle rh = net.regMr(pair.recv(), dst, SocketNet.PTR_HOST);
            Future<Integer> sent = sides.submit(() -> stream(driver, "send", (i, slot) -> {
                MemorySegment m = slot(src, slot).asSlice(0, size(i));
                TestPattern.fill(m, seed(i));
                return net.isend(pair.send(), m, sh);
            }, (i, slot) -> {
            }));
            Future<Integer> received = sides.submit(() -> stream(driver, "receive",
                    (i, slot) -> net.irecv(pair.recv(), slot(dst, slot), rh), (i, slot) -> {
                        MemorySegment got = slot(dst, slot);
                        MemorySegment want = expected.asSlice(0, size(i));
                        TestPattern.fill(want, seed(i));
                        TestPattern.assertSame(layout + " message " + i, want, got, size(i));
                        TestPattern.assertUntouched(layout + " slot after message " + i, got, size(i), SLOT, CANARY);
                        got.fill(CANARY);
                    }));
            // Each side really kept the whole window in flight: the net never held a request back.
            assertEquals(WINDOW, sent.get(120, TimeUnit.SECONDS), "most sends in flight at once");
            assertEquals(WINDOW, received.get(120, TimeUnit.SECONDS), "most receives in flight at once");
            net.closeSend(pair.send());
            net.closeRecv(pair.recv());
        } finally {
            sides.shutdownNow();
            net.shutdown();
        }
    }

    private static long size(int message) {
        return SIZES[message % SIZES.length];
    }

    private static long seed(int message) {
        return 7_000 + message;
    }

    private static MemorySegment slot(MemorySegment buffers, int slot) {
        return buffers.asSlice(slot * SLOT, SLOT);
    }

    @FunctionalInterface
    private interface Post {
        Request post(int message, int slot) throws NetException;
    }

    @FunctionalInterface
    private interface Done {
        void done(int message, int slot) throws Exception;
    }

    /**
     * Posts MESSAGES requests keeping up to WINDOW in flight, completes the oldest first and
     * checks each completed one transferred its message's size.
     *
     * @return the most requests that were in flight at once
     */
    private static int stream(RequestDriver driver, String side, Post post, Done done) throws Exception {
        ArrayDeque<Request> inFlight = new ArrayDeque<>();
        int posted = 0;
        int completed = 0;
        int most = 0;
        while (completed < MESSAGES) {
            if (posted < MESSAGES && inFlight.size() < WINDOW) {
                int i = posted++;
                inFlight.add(driver.untilNonNull(side + " " + i, () -> post.post(i, i % WINDOW)));
                most = Math.max(most, inFlight.size());
                continue;
            }
            int i = completed++;
            assertEquals(size(i), driver.complete(side + " " + i, inFlight.pollFirst()), side + " " + i + " size");
            done.done(i, i % WINDOW);
        }
        return most;
    }
}
