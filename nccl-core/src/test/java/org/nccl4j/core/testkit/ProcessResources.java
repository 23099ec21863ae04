package org.nccl4j.core.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What this JVM holds, read from the kernel and the thread list rather than from nccl4j: the TCP
 * ports it listens on and its nccl4j threads. Tests compare snapshots to prove release.
 */
public final class ProcessResources {
    private ProcessResources() {
    }

    /** @return the TCP ports (v4 and v6) on which a socket of this process listens */
    public static Set<Integer> listeningPorts() {
        Set<String> inodes = new TreeSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException e) {
                    // closed while listing
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        Set<Integer> ports = new TreeSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try {
                List<String> lines = Files.readAllLines(Path.of(table));
                for (String line : lines.subList(1, lines.size())) {
                    String[] f = line.trim().split("\\s+");
                    // local_address st ... inode: st 0A is LISTEN
                    if (f[3].equals("0A") && inodes.contains(f[9])) {
                        ports.add(Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16));
                    }
                }
            } catch (IOException e) {
                // no IPv6 table on this kernel
            }
        }
        return ports;
    }

    /** @return names of the live threads nccl4j starts ({@code nccl4j-*}, {@code NCCLproxy *}) */
    public static Set<String> ncclThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("nccl4j-") || n.startsWith("NCCLproxy"))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /**
     * Polls until {@code now} equals {@code expected} or the time is up.
     *
     * @return the last value seen
     */
    public static <T> T awaitEqual(T expected, Supplier<T> now, long millis) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000;
        T v = now.get();
        while (!v.equals(expected) && System.nanoTime() < end) {
            Thread.sleep(10);
            v = now.get();
        }
        return v;
    }
}
