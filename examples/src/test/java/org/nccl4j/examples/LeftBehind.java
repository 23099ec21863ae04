package org.nccl4j.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What a rank JVM still holds once its command has ended, seen from outside while it holds
 * before exiting ({@code NCCL4J_EXIT_HOLD_MS}, the CLI's {@code exit-hold} thread): threads
 * named for nccl4j (its streams, channels, proxy, Netty loops), TCP sockets ({@code ss}) and
 * {@code /dev/shm} mappings ({@code /proc/PID/maps}). Read from the kernel, not asked of the JVM.
 */
final class LeftBehind {
    private LeftBehind() {
    }

    /**
     * Watches a process until it holds, then looks.
     *
     * @param pid     the rank JVM
     * @param timeout how long it may take to get there
     * @return empty if it held nothing; else what it held, or that it never held
     */
    static CompletableFuture<String> watch(long pid, Duration timeout) {
        CompletableFuture<String> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("left-behind-" + pid).start(() -> {
            try {
                f.complete(look(pid, timeout));
            } catch (Exception e) {
                f.complete("watching pid " + pid + " failed: " + e);
            }
        });
        return f;
    }

    private static String look(long pid, Duration timeout) throws IOException, InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            List<String> threads = threads(pid);
            if (threads == null) {
                return "pid " + pid + " exited without holding (NCCL4J_EXIT_HOLD_MS)";
            }
            if (threads.contains(ExitHold.THREAD)) {
                List<String> left = new ArrayList<>();
                List<String> ours = threads.stream().filter(t -> t.toLowerCase(Locale.ROOT).startsWith("nccl")).toList();
                if (!ours.isEmpty()) {
                    left.add("threads " + ours);
                }
                List<String> shm = shmMappings(pid);
                if (!shm.isEmpty()) {
                    left.add("/dev/shm mappings " + shm);
                }
                List<String> all = tcpSockets();
                List<String> tcp = all.stream().filter(l -> l.contains("pid=" + pid + ",")).toList();
                if (!tcp.isEmpty()) {
                    left.add("TCP sockets " + tcp + "; their other ends: " + otherEnds(tcp, all));
                }
                return String.join("; ", left);
            }
            Thread.sleep(20);
        }
        return "pid " + pid + " did not hold within " + timeout.toSeconds() + " s";
    }

    /** @return the kernel's names of the process's threads, or {@code null} once it is gone */
    private static List<String> threads(long pid) {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            List<String> names = new ArrayList<>();
            for (Path t : tasks.toList()) {
                try {
                    names.add(Files.readString(t.resolve("comm")).strip());
                } catch (IOException gone) {
                    // that thread ended meanwhile
                }
            }
            return names;
        } catch (IOException | java.io.UncheckedIOException gone) {
            return null;
        }
    }

    private static List<String> shmMappings(long pid) throws IOException {
        try (Stream<String> maps = Files.lines(Path.of("/proc/" + pid + "/maps"))) {
            return maps.filter(l -> l.contains("/dev/shm/")).map(l -> l.substring(l.indexOf("/dev/shm/"))).distinct()
                    .toList();
        }
    }

    /** @return every TCP socket of the host with its owner, one line each ({@code ss -tnpHa}, blanks squeezed) */
    private static List<String> tcpSockets() throws IOException, InterruptedException {
        Process ss = new ProcessBuilder("ss", "-tnpHa").redirectErrorStream(true).start();
        List<String> lines = new String(ss.getInputStream().readAllBytes()).lines()
                .map(l -> String.join(" ", l.trim().split("\\s+"))).toList();
        ss.waitFor(5, TimeUnit.SECONDS);
        return lines;
    }

    /** The sockets whose local end is a left socket's peer, and listeners on its ports: who it was talking to. */
    private static List<String> otherEnds(List<String> left, List<String> all) {
        List<String> ends = new ArrayList<>();
        for (String l : left) {
            String[] f = l.split(" ");
            if (f.length < 5) {
                continue;
            }
            String peer = f[4];
            String peerPort = peer.substring(peer.lastIndexOf(':') + 1);
            for (String a : all) {
                String[] g = a.split(" ");
                if (g.length >= 4 && !a.equals(l) && (g[3].equals(peer) || g[0].equals("LISTEN")
                        && g[3].endsWith(":" + peerPort))) {
                    ends.add(a);
                }
            }
        }
        return ends;
    }
}
