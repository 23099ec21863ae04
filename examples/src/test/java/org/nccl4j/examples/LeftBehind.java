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
 * named for nccl4j (its streams, channels, proxy, Netty loops), TCP sockets ({@code ss}),
 * {@code /dev/shm} mappings ({@code /proc/PID/maps}), file descriptors ({@code /proc/PID/fd}) and
 * native memory (NMT, through {@code jcmd}). Read from outside, not asked of the JVM's code.
 */
final class LeftBehind {
    /** How long into the hold it looks. */
    private static final long SETTLE_MS = 300;
    /**
     * Native memory a rank JVM may still hold in NMT's "Other" (Arena and direct buffers) once its
     * communicators are gone: a communicator's buffers over the Socket net are megabytes each.
     */
    private static final long NATIVE_OTHER_MAX = 8L << 20;
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
                f.complete(Files.exists(Path.of("/proc/" + pid)) ? "watching pid " + pid + " failed: " + e
                        : "pid " + pid + " exited while being looked at (NCCL4J_EXIT_HOLD_MS too short): " + e);
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
                // A thread whose work ended just before (an event loop's last steps) is gone in
                // microseconds: only what is still there a moment into the hold was left behind.
                Thread.sleep(SETTLE_MS);
                threads = threads(pid);
                if (threads == null) {
                    return "pid " + pid + " exited within " + SETTLE_MS + " ms of holding (NCCL4J_EXIT_HOLD_MS too short)";
                }
                List<String> left = new ArrayList<>();
                List<String> ours = threads.stream().filter(t -> t.toLowerCase(Locale.ROOT).startsWith("nccl")).toList();
                if (!ours.isEmpty()) {
                    left.add("threads " + ours + ", at:\n" + stacks(pid));
                }
                List<String> shm = shmMappings(pid);
                if (!shm.isEmpty()) {
                    left.add("/dev/shm mappings " + shm);
                }
                // Before jcmd: its attach adds a socket of the JVM's own.
                List<String> fds = leftDescriptors(descriptors(pid));
                if (!fds.isEmpty()) {
                    left.add("file descriptors " + fds);
                }
                String nmt = nativeMemory(pid);
                long other = otherCommitted(nmt);
                System.out.println("LeftBehind: pid " + pid + " holds " + (other >> 10) + " KiB of native memory (NMT Other)");
                if (other < 0) {
                    left.add("native memory unreadable (jcmd VM.native_memory: was the JVM started with "
                            + "-XX:NativeMemoryTracking=summary?): " + nmt.strip());
                } else if (other > NATIVE_OTHER_MAX) {
                    left.add("native memory (NMT Other) " + (other >> 10) + " KiB, more than the "
                            + (NATIVE_OTHER_MAX >> 20) + " MiB a process that holds no connection buffers stays under");
                }
                List<String> all = tcpSockets(pid);
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

    /** @return "fd -> target" of each open file descriptor ({@code /proc/PID/fd}) */
    static List<String> descriptors(long pid) throws IOException {
        List<String> fds = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            for (Path fd : s.toList()) {
                try {
                    fds.add(fd.getFileName() + " -> " + Files.readSymbolicLink(fd));
                } catch (IOException closedMeanwhile) {
                    // not left behind
                }
            }
        }
        return fds;
    }

    /**
     * What a rank JVM holds that no healthy one does once its communicators are gone: selectors and
     * event files ({@code anon_inode:}: epoll, eventfd, timerfd), {@code /dev/shm} files, pipes
     * besides stdin, stdout and stderr, and sockets besides one (the JDK's pre-close socket: the
     * end of a socketpair it keeps from the first NIO socket on, to dup2 over a channel's fd while
     * closing it). Jars, the runtime image and {@code /dev/*random} are the JVM's own.
     *
     * @param fds {@link #descriptors}
     * @return the ones left behind, or an empty list
     */
    static List<String> leftDescriptors(List<String> fds) {
        List<String> left = new ArrayList<>();
        List<String> sockets = new ArrayList<>();
        for (String fd : fds) {
            int n = Integer.parseInt(fd.substring(0, fd.indexOf(' ')));
            String target = fd.substring(fd.indexOf("-> ") + 3);
            if (target.startsWith("anon_inode:") || target.startsWith("/dev/shm/") || target.startsWith("pipe:") && n > 2) {
                left.add(fd);
            } else if (target.startsWith("socket:")) {
                sockets.add(fd);
            }
        }
        if (sockets.size() > 1) {
            left.addAll(sockets);
        }
        return left;
    }

    private static List<String> shmMappings(long pid) throws IOException {
        try (Stream<String> maps = Files.lines(Path.of("/proc/" + pid + "/maps"))) {
            return maps.filter(l -> l.contains("/dev/shm/")).map(l -> l.substring(l.indexOf("/dev/shm/"))).distinct()
                    .toList();
        }
    }

    /**
     * @param pid a process, in whichever network namespace (a host of {@code NetnsHosts} or this one)
     * @return every TCP socket of its network namespace with its owner, one line each
     *     ({@code ss -tnpHa}, blanks squeezed)
     */
    static List<String> tcpSockets(long pid) throws IOException, InterruptedException {
        Process ss = new ProcessBuilder(inNetOf(pid, "ss", "-tnpHa")).redirectErrorStream(true).start();
        List<String> lines = new String(ss.getInputStream().readAllBytes()).lines()
                .map(l -> String.join(" ", l.trim().split("\\s+"))).toList();
        ss.waitFor(5, TimeUnit.SECONDS);
        return lines;
    }

    /**
     * @return bytes committed in NMT's "Other" category of a JVM started with
     *     {@code -XX:NativeMemoryTracking=summary} ({@code jcmd PID VM.native_memory summary}), or -1
     *     if it could not be read
     */
    static long nativeOther(long pid) throws IOException, InterruptedException {
        return otherCommitted(nativeMemory(pid));
    }

    /**
     * @return what {@code jcmd PID VM.native_memory summary} printed; tried again a few times
     *     while it cannot attach (a JVM busy starting or under load answers late)
     */
    private static String nativeMemory(long pid) throws IOException, InterruptedException {
        String out = "";
        for (int attempt = 0; attempt < 3; attempt++) {
            out = jcmd(pid, "VM.native_memory", "summary");
            if (otherCommitted(out) >= 0) {
                return out;
            }
            Thread.sleep(500);
        }
        return out;
    }

    /** @return what {@code jcmd PID COMMAND...} printed (this JVM's own jcmd), stderr included */
    private static String jcmd(long pid, String... command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid)));
        cmd.addAll(List.of(command));
        Process jcmd = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes());
        jcmd.waitFor(10, TimeUnit.SECONDS);
        return out;
    }

    /** @return the stacks of the process's nccl4j threads ({@code jcmd PID Thread.print}), for the failure message */
    private static String stacks(long pid) throws IOException, InterruptedException {
        String out = jcmd(pid, "Thread.print");
        // Thread.print separates threads by blank lines; each block starts with the quoted name.
        return java.util.Arrays.stream(out.split("\n\s*\n")).filter(b -> b.startsWith("\"nccl"))
                .collect(java.util.stream.Collectors.joining("\n"));
    }

    /**
     * @param summary what {@code VM.native_memory summary} printed
     * @return the bytes committed in its "Other" category, or -1 if it has none
     */
    static long otherCommitted(String summary) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("-\\s+Other \\(reserved=\\d+KB, committed=(\\d+)KB\\)")
                .matcher(summary);
        return m.find() ? Long.parseLong(m.group(1)) << 10 : -1;
    }

    /** @return the command, run in the network namespace of process {@code pid} */
    static List<String> inNetOf(long pid, String... command) {
        List<String> cmd = new ArrayList<>(List.of("nsenter", "--net=/proc/" + pid + "/ns/net"));
        cmd.addAll(List.of(command));
        return cmd;
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
