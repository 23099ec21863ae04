package org.nccl4j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.nccl4j.net.socket.SocketNetProvider;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.testkit.CommPair;
import org.nccl4j.net.spi.testkit.RequestDriver;
import org.nccl4j.net.spi.testkit.TestNetContext;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Socket net throughput on loopback, driven as nccl4j's proxy drives it: up to 8 requests in
 * flight each way, the oldest tested first. The score is messages per second; GB/s = bytes x
 * score / 1e9. The bytes are checked by nccl-net-socket's SocketStreamTest, not here.
 *
 * <pre>
 * java -jar nccl-bench/target/benchmarks.jar SocketNetBench
 * java -jar nccl-bench/target/benchmarks.jar SocketNetBench -p bytes=1048576 -p layout=0x1,4x2
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class SocketNetBench {
    private static final int WINDOW = 8;
    private static final int MESSAGES = 64;

    /** Bytes per message. */
    @Param({"65536", "4194304", "67108864"})
    public int bytes;

    /** NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD; 0x1 is NCCL's default (control connection only). */
    @Param({"0x1", "2x4"})
    public String layout;

    private Net net;
    private Arena arena;
    private RequestDriver driver;
    private CommPair pair;
    private MemorySegment src;
    private MemorySegment dst;
    private MemoryHandle sh;
    private MemoryHandle rh;
    private ExecutorService sender;

    /** Starts the net, connects one pair, registers one send and two receive buffers. */
    @Setup(Level.Trial)
    public void setup() throws NetException {
        String[] tn = layout.split("x");
        net = new SocketNetProvider().create();
        net.init(new TestNetContext(Map.of("NCCL_SOCKET_IFNAME", "lo", "NCCL_SOCKET_NTHREADS", tn[0],
                "NCCL_NSOCKS_PERTHREAD", tn[1])));
        driver = new RequestDriver(net, Duration.ofSeconds(60));
        pair = driver.connect(0);
        arena = Arena.ofShared();
        src = arena.allocate(bytes, 4096);
        dst = arena.allocate(2L * bytes, 4096); // in-flight receives alternate; the bytes are not read
        sh = net.regMr(pair.send(), src, Net.PTR_HOST);
        rh = net.regMr(pair.recv(), dst, Net.PTR_HOST);
        sender = Executors.newSingleThreadExecutor();
    }

    /** Closes the pair and the net. */
    @TearDown(Level.Trial)
    public void tearDown() throws NetException {
        sender.shutdownNow();
        net.closeSend(pair.send());
        net.closeRecv(pair.recv());
        net.shutdown();
        arena.close();
    }

    /** MESSAGES messages one way, sender on its own thread, receiver on the benchmark's. */
    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public long stream() throws Exception {
        Future<Long> sent = sender.submit(() -> window("send", i -> net.isend(pair.send(), src, sh)));
        long received = window("receive", i -> net.irecv(pair.recv(), dst.asSlice((i & 1) * (long) bytes, bytes), rh));
        return received + sent.get(60, TimeUnit.SECONDS);
    }

    @FunctionalInterface
    private interface Post {
        Request post(int i) throws NetException;
    }

    private long window(String side, Post post) throws NetException {
        ArrayDeque<Request> inFlight = new ArrayDeque<>();
        long total = 0;
        int posted = 0;
        while (posted < MESSAGES || !inFlight.isEmpty()) {
            if (posted < MESSAGES && inFlight.size() < WINDOW) {
                int i = posted++;
                inFlight.add(driver.untilNonNull(side + " " + i, () -> post.post(i)));
            } else {
                total += driver.complete(side, inFlight.pollFirst());
            }
        }
        return total;
    }
}
