package org.nccl4j.net.socket;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.testkit.CommPair;
import org.nccl4j.net.spi.testkit.RequestDriver;
import org.nccl4j.net.spi.testkit.TestNetContext;
import org.nccl4j.net.spi.testkit.TestPattern;

/**
 * A throughput smoke test on loopback: 64 MiB messages, up to 8 in flight (as nccl4j's proxy
 * keeps them), for several socket layouts. It prints GB/s and asserts only that the data
 * arrived; speed is measured here, never asserted. {@code -Dnccl4j.bench.messages=N} (default
 * 16), {@code -Dnccl4j.bench.size=BYTES} (default 64 MiB) and
 * {@code -Dnccl4j.bench.layouts=0x1,2x2,...} ({@code threads x socketsPerThread}, {@code nio:}
 * prefix for the NIO transport) change the run.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class SocketThroughputTest {
    private static final long MESSAGE = Long.getLong("nccl4j.bench.size", 64L << 20);
    private static final int WINDOW = 8;
    private static final int RECV_SLOTS = 2;
    private static final long PARK_NANOS = Long.getLong("nccl4j.bench.parkNanos", 0);

    @Test
    void loopbackThroughput() throws Exception {
        int messages = Integer.getInteger("nccl4j.bench.messages", 16);
        String layouts = System.getProperty("nccl4j.bench.layouts", "0x1,2x4,nio:0x1");
        List<String> lines = new ArrayList<>();
        for (String layout : layouts.split(",")) {
            lines.add(measure(layout.strip(), messages));
        }
        System.out.println("[throughput] " + messages + " x " + MESSAGE + " bytes over loopback, " + WINDOW + " in flight, "
                + Runtime.getRuntime().availableProcessors() + " cores");
        lines.forEach(l -> System.out.println("[throughput] " + l));
    }

    private static String measure(String layout, int messages) throws Exception {
        boolean nio = layout.startsWith("nio:");
        String[] tn = (nio ? layout.substring(4) : layout).split("x");
        SocketNet net = new SocketNet(nio ? NettyTransport.NIO : null);
        net.init(new TestNetContext(Map.of("NCCL_SOCKET_IFNAME", "lo", "NCCL_SOCKET_NTHREADS", tn[0],
                "NCCL_NSOCKS_PERTHREAD", tn[1])));
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (Arena arena = Arena.ofShared()) {
            RequestDriver driver = new RequestDriver(net, Duration.ofSeconds(60));
            CommPair pair = driver.connect(0);
            // Every send reads one buffer; receives alternate between two (in-flight receives may
            // share memory: the bytes are not checked until a final, separate message).
            MemorySegment src = arena.allocate(MESSAGE, 4096);
            MemorySegment dst = arena.allocate(MESSAGE * RECV_SLOTS, 4096);
            TestPattern.fill(src, 5);
            MemoryHandle sh = net.regMr(pair.send(), src, SocketNet.PTR_HOST);
            MemoryHandle rh = net.regMr(pair.recv(), dst, SocketNet.PTR_HOST);
            // Warm up (JIT, TCP windows), then time.
            run(net, pair, src, dst, sh, rh, WINDOW, threads);
            long t0 = System.nanoTime();
            run(net, pair, src, dst, sh, rh, messages, threads);
            double seconds = (System.nanoTime() - t0) / 1e9;
            MemorySegment check = dst.asSlice(0, MESSAGE);
            check.fill((byte) 0);
            run(net, pair, src, check, sh, rh, 1, threads);
            TestPattern.assertSame("data after the timed run", src, check, MESSAGE);
            net.closeSend(pair.send());
            net.closeRecv(pair.recv());
            double gbps = messages * MESSAGE / seconds / 1e9;
            return String.format(Locale.ROOT, "%-9s %-5s nSocks=%-2d %6.2f GB/s (%.0f ms, %.1f us/message)", layout,
                    net.transportName(), Integer.parseInt(tn[0]) * Integer.parseInt(tn[1]), gbps, seconds * 1e3,
                    seconds * 1e6 / messages);
        } finally {
            threads.shutdownNow();
            net.shutdown();
        }
    }

    private static void run(SocketNet net, CommPair pair, MemorySegment src, MemorySegment dst, MemoryHandle sh,
                            MemoryHandle rh, int messages, ExecutorService threads) throws Exception {
        Future<Long> s = threads.submit(() -> stream(messages, i -> net.isend(pair.send(), src, sh), net));
        Future<Long> r = threads.submit(() -> stream(messages, i -> net.irecv(pair.recv(), slot(dst, i), rh), net));
        assertEquals(messages * MESSAGE, s.get(120, TimeUnit.SECONDS));
        assertEquals(messages * MESSAGE, r.get(120, TimeUnit.SECONDS));
    }

    private static MemorySegment slot(MemorySegment buf, int i) {
        return buf.asSlice((i % (buf.byteSize() / MESSAGE)) * MESSAGE, MESSAGE);
    }

    @FunctionalInterface
    private interface Post {
        Request post(int i) throws NetException;
    }

    /** Keeps up to WINDOW requests in flight, tests the oldest, like the proxy does. */
    private static long stream(int messages, Post post, SocketNet net) throws NetException {
        ArrayDeque<Request> inFlight = new ArrayDeque<>();
        long bytes = 0;
        int posted = 0;
        int idle = 0;
        while (posted < messages || !inFlight.isEmpty()) {
            if (posted < messages && inFlight.size() < WINDOW) {
                inFlight.add(post.post(posted++));
                continue;
            }
            long n = net.test(inFlight.peekFirst());
            if (n >= 0) {
                inFlight.pollFirst();
                bytes += n;
                idle = 0;
            } else if (++idle > 64) {
                if (PARK_NANOS > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(PARK_NANOS);
                } else {
                    Thread.yield();
                }
            }
        }
        return bytes;
    }
}
