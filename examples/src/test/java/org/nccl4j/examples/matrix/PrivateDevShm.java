package org.nccl4j.examples.matrix;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@code /dev/shm} of its own for the rank JVMs of one test: a tmpfs of the given size in a
 * mount namespace that a sleeping process holds. The ranks run inside it ({@link #wrap}), so it
 * can be small or filled ({@link #fill}) without touching the machine's; closing ends the
 * namespace and its tmpfs.
 */
public final class PrivateDevShm implements AutoCloseable {
    private final Process holder;

    private PrivateDevShm(Process holder) {
        this.holder = holder;
    }

    /** @return why one cannot be made here, or {@code null} */
    public static String unavailableReason() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "a private /dev/shm mount needs root";
        }
        for (String tool : List.of("unshare", "nsenter", "mount", "fallocate")) {
            if (!RankJvms.onPath(tool)) {
                return tool + " is not installed (Debian: util-linux / mount)";
            }
        }
        return null;
    }

    /**
     * @param megabytes the tmpfs's size
     * @return the namespace, its tmpfs mounted
     * @throws IOException if it cannot be made
     */
    public static PrivateDevShm start(int megabytes) throws IOException, InterruptedException {
        // exec: the holder's pid is the sleeping process itself, so killing it ends the namespace.
        Process p = new ProcessBuilder("unshare", "--mount", "--propagation", "private", "sh", "-c",
                "mount -t tmpfs -o size=" + megabytes + "m tmpfs /dev/shm && echo ready && exec sleep 100000")
                .redirectErrorStream(true).start();
        BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
            StringBuilder sb = new StringBuilder();
            try {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.equals("ready")) {
                        return null;
                    }
                    sb.append(line).append('\n');
                }
            } catch (IOException e) {
                sb.append(e);
            }
            return sb.toString();
        });
        String err;
        try {
            err = first.get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            err = "no 'ready' from the holder: " + e;
        }
        if (err != null) {
            p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            throw new IOException("cannot make a private " + megabytes + " MiB /dev/shm (unshare --mount; mount -t tmpfs): "
                    + err.strip());
        }
        return new PrivateDevShm(p);
    }

    /** @return the command prefix that enters the namespace */
    public List<String> wrap() {
        return List.of("nsenter", "--mount=/proc/" + holder.pid() + "/ns/mnt", "--");
    }

    /**
     * Fills it, as another job's leftovers would: files take the space left, halving a size that
     * no longer fits (the ranks may be taking some meanwhile), until less than a page is free. It
     * was full once the last try failed with ENOSPC at under two pages, or {@code df} showed less
     * than a page; the ranks may free some right after (a failed connect deletes its segment), so
     * what is free afterwards is only reported.
     *
     * @return the bytes free once filled (0 while it stays full)
     * @throws IOException if a try failed for another reason than a full file system
     */
    public long fill() throws IOException, InterruptedException {
        String[] out = run("a=$(df -B1 --output=avail /dev/shm | tail -1); i=0; why=full; "
                + "while [ \"$a\" -ge 4096 ]; do if e=$(fallocate -l \"$a\" /dev/shm/fill.$i 2>&1); "
                + "then i=$((i + 1)); why=full; a=$(df -B1 --output=avail /dev/shm | tail -1); "
                + "else why=$e; a=$((a / 2)); fi; done; "
                + "echo \"$why\"; df -B1 --output=avail /dev/shm | tail -1").split("\n");
        String why = out[0];
        if (!why.equals("full") && !why.contains("No space left on device")) {
            throw new IOException("filling /dev/shm failed: " + why);
        }
        return Long.parseLong(out[out.length - 1].strip());
    }

    /** @return the names in the namespace's {@code /dev/shm} but the fill's, in order */
    public List<String> list() throws IOException, InterruptedException {
        String out = run("ls -A /dev/shm");
        return Arrays.stream(out.split("\n")).filter(x -> !x.isBlank() && !x.startsWith("fill.")).sorted().toList();
    }

    private String run(String script) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(wrap());
        cmd.addAll(List.of("sh", "-c", script));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(script + ": " + out);
        }
        return out;
    }

    @Override
    public void close() {
        holder.destroyForcibly(); // the sleeping holder itself (exec), so the namespace goes with it
        try {
            holder.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
