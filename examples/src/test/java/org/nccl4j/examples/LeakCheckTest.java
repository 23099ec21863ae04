package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.management.JMException;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;

/**
 * Communicators made and unmade many times in one JVM (closed, aborted after a failure, split and
 * shrunk, over SHM-free in-process connections and over the Socket net) leave nothing behind:
 * the threads, the open file descriptors and the {@code /dev/shm} entries return to where they
 * were, and the native memory the JVM's Native Memory Tracking counts as "Other" (what
 * {@code Arena} and direct buffers allocate: the connections' buffers, Netty's) grows by less
 * than one cycle's worth. Counted by name from the JVM, {@code /proc} and NMT, not asked of nccl4j.
 */
class LeakCheckTest {
    private static final int CYCLES = Integer.getInteger("nccl4j.leak.cycles", 8);
    /** Native memory that may come and go between snapshots (the JDK's own allocations). */
    private static final long NATIVE_SLACK = 2L << 20;

    @Test
    void cyclesOfInitCollectivesFailuresAndRecoveryLeaveNothingBehind() {
        assertTimeoutPreemptively(Duration.ofMinutes(5), () -> {
            warmUp();
            Snapshot before = Snapshot.take();
            for (int i = 0; i < CYCLES; i++) {
                cycle(CommConfig.defaults());
                cycle(CommConfig.builder().param("NCCL_SHM_DISABLE", "1").param("NCCL_P2P_DISABLE", "1").build());
            }
            Snapshot after = Snapshot.settle(before, Duration.ofSeconds(10));
            assertEquals(before.threads(), after.threads(), "threads by name");
            assertEquals(before.shm(), after.shm(), "/dev/shm entries");
            // Descriptors: the JVM's own (jars, selectors it caches) may vary by a few.
            assertEquals(before.fds(), after.fds(), 8, "open file descriptors");
            // Each cycle allocates megabytes of buffers: a leak of one communicator's shows.
            long grown = after.nativeOther() - before.nativeOther();
            System.out.printf("LeakCheckTest: native memory (NMT Other) %d KiB before, %d KiB after %d cycles%n",
                    before.nativeOther() >> 10, after.nativeOther() >> 10, 2 * CYCLES);
            assertTrue(grown < NATIVE_SLACK, "native memory grew by " + (grown >> 10) + " KiB over " + 2 * CYCLES
                    + " cycles (NMT Other: " + (before.nativeOther() >> 10) + " -> " + (after.nativeOther() >> 10)
                    + " KiB)");
        });
    }

    /** One of each: a healthy run, a failure then abort, a split and a shrink. */
    private static void cycle(CommConfig cfg) throws Exception {
        List<Communicator> comms = Nccl.commInitAll(3, cfg);
        try {
            onEach(comms, c -> sum(c, c.userRank() + 1)).forEach(v -> assertEquals(6, v));
            List<Communicator> kids = onEach(comms, c -> c.split(c.userRank() % 2, 0));
            assertEquals(List.of(2, 1, 2), onEach(kids, c -> sum(c, 1)), "ones summed per color");
            kids.forEach(Communicator::close);
            comms.get(2).abort();
            onEach(comms.subList(0, 2), c -> assertThrows(NcclException.class, () -> sum(c, 1)));
            List<Communicator> shrunk = onEach(comms.subList(0, 2), c -> c.shrink(2));
            onEach(shrunk, c -> sum(c, 2)).forEach(v -> assertEquals(4, v));
            shrunk.forEach(Communicator::close);
        } finally {
            comms.forEach(Communicator::abort);
        }
    }

    private static int sum(Communicator c, int v) {
        int[] a = {v};
        c.allReduce(a, RedOp.SUM);
        return a[0];
    }

    private static <T> List<T> onEach(List<Communicator> comms, Function<Communicator, T> f) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(comms.size());
        try {
            List<CompletableFuture<T>> fs = comms.stream().map(c -> CompletableFuture.supplyAsync(() -> f.apply(c), pool)).toList();
            List<T> out = new ArrayList<>();
            for (CompletableFuture<T> x : fs) {
                out.add(x.get(60, TimeUnit.SECONDS));
            }
            return out;
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /** Loads what stays loaded (nets, their event loops) before the baseline is taken. */
    private static void warmUp() throws Exception {
        cycle(CommConfig.defaults());
        cycle(CommConfig.builder().param("NCCL_SHM_DISABLE", "1").param("NCCL_P2P_DISABLE", "1").build());
    }

    /** Live threads by name (digits dropped), open descriptors, nccl4j's /dev/shm entries, native memory. */
    private record Snapshot(Map<String, Long> threads, long fds, List<String> shm, long nativeOther) {
        static Snapshot take() throws IOException {
            Map<String, Long> threads = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                    .map(t -> t.getName().replaceAll("\\d+", "#"))
                    .filter(n -> !n.startsWith("ForkJoinPool") && !n.startsWith("pool-"))
                    .collect(Collectors.groupingBy(n -> n, TreeMap::new, Collectors.counting()));
            long fds;
            try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
                fds = s.count();
            }
            List<String> shm;
            try (Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
                shm = s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("nccl4j")).sorted().toList();
            }
            return new Snapshot(threads, fds, shm, nativeOtherNow());
        }

        /** @return bytes committed in NMT's "Other" category (Unsafe, Arena and direct buffer allocations) */
        static long nativeOtherNow() {
            String summary;
            try {
                summary = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                        new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                        new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
            } catch (JMException e) {
                throw new AssertionError("cannot read native memory tracking", e);
            }
            long other = LeftBehind.otherCommitted(summary);
            assertTrue(other >= 0, () -> "no Other category: is the JVM running with -XX:NativeMemoryTracking=summary?\n"
                    + summary);
            return other;
        }

        /** Waits up to {@code max} for threads that are ending to be gone, then takes a snapshot. */
        static Snapshot settle(Snapshot target, Duration max) throws Exception {
            long end = System.nanoTime() + max.toNanos();
            Snapshot s = take();
            while (!s.threads().equals(target.threads()) && System.nanoTime() < end) {
                Thread.sleep(50);
                s = take();
            }
            return s;
        }
    }
}
