package org.nccl4j.core.launch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.nccl4j.core.param.Param;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.transport.ShmTransport;

/**
 * Starts N rank JVMs on this machine and watches them: nccl4j's own launcher, used by
 * {@code ./nccl4j} and by multi-process tests.
 *
 * <p>Each child gets {@code NCCL4J_RANK}, {@code NCCL4J_NRANKS} and the unique id of a root this
 * process started ({@code NCCL4J_UNIQUE_ID}), so {@link org.nccl4j.Nccl#commInitFromEnv()} works
 * in it. Output lines are echoed (optionally prefixed with the rank) and kept. If a child fails
 * or the deadline passes, the survivors' thread dumps are printed and every child is killed.
 */
public final class LocalLauncher {
    /**
     * What the ranks did.
     *
     * @param exitCodes exit code per rank (-1 = killed)
     * @param expected  the exit code each rank was to end with: 0, or what {@link #expectExit} said
     * @param output    every output line per rank, stdout and stderr merged
     * @param timedOut  whether the deadline passed
     */
    public record Outcome(int[] exitCodes, int[] expected, List<List<String>> output, boolean timedOut) {
        /** @return whether every rank exited with its expected code in time */
        public boolean success() {
            return !timedOut && java.util.Arrays.equals(exitCodes, expected);
        }
    }

    /** The java binary and its options, {@link #jvmOptions} last. */
    private final List<String> jvm = new ArrayList<>();
    /** The class path, the main class and its arguments. */
    private final List<String> program;
    private final Map<String, String> env = new HashMap<>();
    private IntFunction<List<String>> wrapper = r -> List.of();
    private IntFunction<Map<String, String>> envPerRank = r -> Map.of();
    private PrintStream echo = System.out;
    private final Map<Integer, Integer> expectedExits = new HashMap<>();
    private boolean prefix = false;

    /**
     * @param mainClass the class every rank runs
     * @param args      its arguments
     */
    public LocalLauncher(String mainClass, List<String> args) {
        jvm.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        jvm.add("--enable-native-access=ALL-UNNAMED");
        // JVM options for rank JVMs (./nccl4j passes its class-data archive here).
        String opts = System.getenv().getOrDefault("NCCL4J_CHILD_JAVA_OPTS", "-XX:+UseSerialGC");
        for (String o : opts.trim().split("\\s+")) {
            if (!o.isEmpty()) {
                jvm.add(o);
            }
        }
        // The launcher's own -D settings of parameters reach every rank, as its environment does.
        for (Param p : Params.all()) {
            String v = System.getProperty(p.propertyName());
            if (v != null) {
                jvm.add("-D" + p.propertyName() + "=" + v);
            }
        }
        List<String> prog = new ArrayList<>(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        prog.addAll(args);
        this.program = List.copyOf(prog);
    }

    /**
     * @param name  a variable every child gets
     * @param value its value
     * @return this launcher
     */
    public LocalLauncher env(String name, String value) {
        env.put(name, value);
        return this;
    }

    /**
     * @param options JVM options added to every rank's (after {@code NCCL4J_CHILD_JAVA_OPTS})
     * @return this launcher
     */
    public LocalLauncher jvmOptions(String... options) {
        jvm.addAll(List.of(options));
        return this;
    }

    /**
     * @param perRank the command to put before {@code java} for each rank (e.g. entering a
     *                network namespace); empty for none
     * @return this launcher
     */
    public LocalLauncher wrapper(IntFunction<List<String>> perRank) {
        this.wrapper = perRank;
        return this;
    }

    /**
     * @param perRank extra variables for each rank (applied last, so they may override
     *                {@code NCCL4J_RANK})
     * @return this launcher
     */
    public LocalLauncher envPerRank(IntFunction<Map<String, String>> perRank) {
        this.envPerRank = perRank;
        return this;
    }

    /**
     * A rank that is to end with another code than 0 (one killed on purpose, for a fault
     * demonstration): that code counts as its success, and does not cut the others' wait short.
     *
     * @param rank the rank
     * @param code its expected exit code (137 for SIGKILL)
     * @return this launcher
     */
    public LocalLauncher expectExit(int rank, int code) {
        expectedExits.put(rank, code);
        return this;
    }

    /**
     * @param out      where children's lines are echoed, or {@code null} for nowhere
     * @param withRank whether to prefix each line with {@code [rank N]}
     * @return this launcher
     */
    public LocalLauncher echo(PrintStream out, boolean withRank) {
        this.echo = out;
        this.prefix = withRank;
        return this;
    }

    /**
     * Starts the ranks and waits for them.
     *
     * @param nranks   number of rank JVMs
     * @param uniqueId the printable unique id handed to every rank, or {@code null} if the
     *                 environment already names the root
     * @param timeout  how long they may run
     * @return what happened
     * @throws IOException if a child cannot be started
     */
    public Outcome run(int nranks, String uniqueId, Duration timeout) throws IOException {
        return run(nranks, nranks, uniqueId, timeout);
    }

    /**
     * Starts ranks {@code 0..count-1} of a communicator of {@code size} ranks (fewer than
     * {@code size} leaves ranks missing, for fault tests).
     *
     * @param count    rank JVMs to start
     * @param size     the {@code NCCL4J_NRANKS} they are told
     * @param uniqueId the printable unique id, or {@code null}
     * @param timeout  how long they may run
     * @return what happened
     * @throws IOException if a child cannot be started
     */
    public Outcome run(int count, int size, String uniqueId, Duration timeout) throws IOException {
        int nranks = count;
        int[] expected = new int[nranks];
        expectedExits.forEach((r, c) -> {
            if (r < nranks) {
                expected[r] = c;
            }
        });
        List<Process> procs = new ArrayList<>();
        List<List<String>> output = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        try {
            for (int r = 0; r < nranks; r++) {
                List<String> cmd = new ArrayList<>(wrapper.apply(r));
                cmd.addAll(jvm);
                cmd.addAll(program);
                ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
                pb.environment().putAll(env);
                pb.environment().put("NCCL4J_RANK", Integer.toString(r));
                pb.environment().put("NCCL4J_NRANKS", Integer.toString(size));
                if (uniqueId != null) {
                    pb.environment().put("NCCL4J_UNIQUE_ID", uniqueId);
                }
                pb.environment().putAll(envPerRank.apply(r));
                Process p = pb.start();
                procs.add(p);
                List<String> lines = new CopyOnWriteArrayList<>();
                output.add(lines);
                readers.add(pump(r, p, lines));
            }
            long end = System.nanoTime() + timeout.toNanos();
            int[] codes = new int[nranks];
            boolean timedOut = false;
            boolean failed = false;
            // Wait for all; a failing rank ends the wait for the others only after a grace
            // period in which they can report their own, more precise errors.
            long graceEnd = Long.MAX_VALUE;
            for (int r = 0; r < nranks; r++) {
                Process p = procs.get(r);
                long until = Math.min(end, graceEnd);
                if (!p.waitFor(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    timedOut = until == end;
                    failed = true;
                    break;
                }
                codes[r] = p.exitValue();
                if (codes[r] != expected[r] && graceEnd == Long.MAX_VALUE) {
                    graceEnd = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                }
            }
            if (failed) {
                dumpAndKill(procs);
                for (int r = 0; r < nranks; r++) {
                    Process p = procs.get(r);
                    codes[r] = p.isAlive() || !p.waitFor(5, TimeUnit.SECONDS) ? -1 : p.exitValue();
                }
            }
            for (Thread t : readers) {
                t.join(2000);
            }
            return new Outcome(codes, expected, output, timedOut);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            procs.forEach(Process::destroyForcibly);
            throw new IOException("interrupted while waiting for ranks", e);
        } finally {
            procs.forEach(p -> p.descendants().forEach(ProcessHandle::destroyForcibly));
            procs.forEach(Process::destroyForcibly);
            removeSegmentsOfEnded(procs);
        }
    }

    /**
     * A rank killed between creating its shared-memory segments and its peers mapping them
     * cannot remove their names; its launcher can, once it has ended.
     */
    private static void removeSegmentsOfEnded(List<Process> procs) {
        for (Process p : procs) {
            try {
                if (p.waitFor(5, TimeUnit.SECONDS)) {
                    int n = ShmTransport.removeSegmentsOf(p.pid());
                    if (n > 0) {
                        System.err.println("nccl4j launcher: removed " + n + " /dev/shm segment(s) of ended rank process "
                                + p.pid());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private Thread pump(int rank, Process p, List<String> lines) {
        return Thread.ofPlatform().daemon().name("nccl4j-launch-out-" + rank).start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                    if (echo != null) {
                        echo.println(prefix ? "[rank " + rank + "] " + line : line);
                    }
                }
            } catch (IOException ignored) {
                // The child went away; its exit code tells the story.
            }
        });
    }

    /** Prints the thread dump of every live child (SIGQUIT to each JVM), then kills them all. */
    private void dumpAndKill(List<Process> procs) throws InterruptedException {
        boolean any = false;
        for (Process p : procs) {
            for (ProcessHandle h : jvms(p)) {
                any = true;
                try {
                    new ProcessBuilder("kill", "-QUIT", Long.toString(h.pid())).start().waitFor(2, TimeUnit.SECONDS);
                } catch (IOException ignored) {
                    // Dumping is best effort; killing below is not.
                }
            }
        }
        if (any) {
            Thread.sleep(1500); // let the JVMs print their dumps
        }
        for (Process p : procs) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    private static List<ProcessHandle> jvms(Process p) {
        List<ProcessHandle> list = new ArrayList<>();
        if (p.isAlive() && p.info().command().map(c -> c.endsWith("java")).orElse(false)) {
            list.add(p.toHandle());
        }
        p.descendants().filter(h -> h.info().command().map(c -> c.endsWith("java")).orElse(false)).forEach(list::add);
        return list;
    }
}
