package org.nccl4j.net.socket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.Channel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.testkit.CommPair;
import org.nccl4j.net.spi.testkit.RequestDriver;
import org.nccl4j.net.spi.testkit.TestNetContext;
import org.nccl4j.net.spi.testkit.TestPattern;

/**
 * With data connections (2 threads x 2 sockets), a message that would be one piece travels on
 * the control connection, which the proxy drives itself, and a larger one is cut over the data
 * connections. Judged by the kernel's count of the bytes each TCP connection received
 * ({@code ss -ti}'s {@code bytes_received}), not by the comm's own state.
 */
class SocketStripingTest {
    private static final Pattern RECEIVED = Pattern.compile("bytes_received:(\\d+)");

    @Test
    void aOnePieceMessageTakesTheControlConnectionALargerOneIsStriped() throws Exception {
        assumeTrue(java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/ss"))
                || java.nio.file.Files.isExecutable(java.nio.file.Path.of("/bin/ss")),
                "needs ss (iproute2) to read the kernel's per-connection byte counts");
        SocketNet net = new SocketNet();
        try (Arena arena = Arena.ofShared()) {
            net.init(new TestNetContext(Map.of("NCCL_SOCKET_IFNAME", "lo", "NCCL_SOCKET_NTHREADS", "2",
                    "NCCL_NSOCKS_PERTHREAD", "2")));
            stripes(net, arena);
        } finally {
            net.shutdown();
        }
    }

    private static void stripes(SocketNet net, Arena arena) throws Exception {
        RequestDriver driver = new RequestDriver(net, Duration.ofSeconds(30));
        CommPair pair = driver.connect(0);
        SocketRecvComm recv = (SocketRecvComm) pair.recv();
        assertEquals(4, recv.nSocks());
        assertNotNull(recv.direct, "on epoll the control connection is driven by the proxy");

        long small = 2 * SocketComm.MIN_CHUNKSIZE - 1;
        long[] before = received(recv);
        transfer(net, arena, driver, pair, small, 5);
        long[] after = received(recv);
        assertEquals(small + SocketComm.HEADER_SIZE, after[0] - before[0], "control connection");
        for (int i = 1; i < after.length; i++) {
            assertEquals(0, after[i] - before[i], "data connection " + (i - 1) + " carried part of a one-piece message");
        }

        long large = 1 << 20;
        transfer(net, arena, driver, pair, large, 6);
        long[] last = received(recv);
        assertEquals(SocketComm.HEADER_SIZE, last[0] - after[0], "control connection: the header only");
        long[] pieces = new long[last.length - 1];
        for (int i = 1; i < last.length; i++) {
            pieces[i - 1] = last[i] - after[i];
        }
        long quarter = large / 4;
        assertArrayEquals(new long[] {quarter, quarter, quarter, quarter}, pieces, "bytes per data connection");
        net.closeSend(pair.send());
        net.closeRecv(pair.recv());
    }

    private static void transfer(SocketNet net, Arena arena, RequestDriver driver, CommPair pair, long bytes, int seed)
            throws Exception {
        MemorySegment src = arena.allocate(bytes);
        MemorySegment dst = arena.allocate(bytes);
        TestPattern.fill(src, seed);
        Request s = net.isend(pair.send(), src, HostRegistration.INSTANCE);
        Request r = net.irecv(pair.recv(), dst, HostRegistration.INSTANCE);
        assertEquals(bytes, driver.complete("receive", r));
        assertEquals(bytes, driver.complete("send", s));
        TestPattern.assertSame(bytes + " bytes", src, dst, bytes);
    }

    /** Bytes received so far on the comm's control connection, then on each data connection. */
    private static long[] received(SocketRecvComm comm) throws Exception {
        long[] out = new long[comm.nSocks() + 1];
        out[0] = received(comm.control);
        for (int i = 0; i < comm.nSocks(); i++) {
            out[i + 1] = received(comm.data[i]);
        }
        return out;
    }

    /** The kernel's count for the accepted connection whose peer port is the channel's remote one. */
    private static long received(Channel ch) throws Exception {
        int peerPort = ((InetSocketAddress) ch.remoteAddress()).getPort();
        Process ss = new ProcessBuilder("ss", "-tinH", "state", "established", "( dport = :" + peerPort + " )")
                .redirectErrorStream(true).start();
        String out = new String(ss.getInputStream().readAllBytes());
        assertTrue(ss.waitFor(10, TimeUnit.SECONDS) && ss.exitValue() == 0, "ss failed: " + out);
        assertTrue(out.contains(":" + peerPort), "no connection with peer port " + peerPort + " in: " + out);
        Matcher m = RECEIVED.matcher(out);
        return m.find() ? Long.parseLong(m.group(1)) : 0; // ss leaves the field out while it is 0
    }
}
