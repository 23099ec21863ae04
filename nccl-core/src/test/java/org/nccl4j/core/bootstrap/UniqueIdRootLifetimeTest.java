package org.nccl4j.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.UniqueId;
import org.nccl4j.core.param.Param;

/**
 * The root {@code Nccl.getUniqueId()} starts does not outlive its use: it exits, releasing its
 * port and thread, once every rank has its answer, or after the init timeout when no rank came.
 * Observed from outside: the thread list, a connect and a bind of the root's port.
 */
@Timeout(60)
class UniqueIdRootLifetimeTest {
    private static final String INIT_TIMEOUT = Param.propertyName("NCCL4J_INIT_TIMEOUT_MS");

    @Test
    void aRootNobodyChecksInToExitsAtTheInitTimeout() throws Exception {
        String before = System.getProperty(INIT_TIMEOUT);
        UniqueId id;
        long started = System.nanoTime();
        System.setProperty(INIT_TIMEOUT, "1500");
        try {
            id = Nccl.getUniqueId();
        } finally {
            restore(before);
        }
        InetSocketAddress root = BootstrapId.decode(id).root();
        Thread thread = rootThread(root);
        assertTrue(thread != null && thread.isAlive(), "the root runs after getUniqueId");
        try (Socket s = new Socket()) {
            s.connect(root, 1000); // it listens until the deadline
        }
        assertTrue(thread.join(java.time.Duration.ofSeconds(10)), "root thread still alive 10 s after a 1.5 s timeout");
        long ms = (System.nanoTime() - started) / 1_000_000;
        assertTrue(ms >= 1400, "root exited after " + ms + " ms, before its 1500 ms init timeout");
        assertReleased(root);
    }

    @Test
    void aRootExitsOnceEveryRankCheckedIn() throws Exception {
        UniqueId id = Nccl.getUniqueId(); // the default init timeout: minutes
        InetSocketAddress root = BootstrapId.decode(id).root();
        Thread thread = rootThread(root);
        assertTrue(thread != null && thread.isAlive(), "the root runs after getUniqueId");
        List<CompletableFuture<Communicator>> ranks = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            ranks.add(Nccl.commInitRankAsync(2, id, r, CommConfig.defaults()));
        }
        List<Communicator> comms = new ArrayList<>();
        try {
            for (CompletableFuture<Communicator> f : ranks) {
                comms.add(f.join());
            }
            assertTrue(thread.join(java.time.Duration.ofSeconds(5)), "root thread alive 5 s after every rank checked in");
            assertReleased(root);
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    /** Connecting is refused and the port can be bound again. */
    private static void assertReleased(InetSocketAddress root) throws IOException {
        try (Socket s = new Socket()) {
            assertThrows(ConnectException.class, () -> s.connect(root, 1000), "the root's port still accepts");
        }
        try (ServerSocket again = new ServerSocket()) {
            again.bind(root);
        }
    }

    private static Thread rootThread(InetSocketAddress root) {
        String name = "nccl4j-bootstrap-root-" + root.getPort();
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst()
                .orElse(null);
    }

    private static void restore(String before) {
        if (before == null) {
            System.clearProperty(INIT_TIMEOUT);
        } else {
            System.setProperty(INIT_TIMEOUT, before);
        }
    }
}
