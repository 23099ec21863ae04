package org.nccl4j.core.netns;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test "hosts" made of Linux network namespaces: each has its own address on a private bridge
 * and, through {@link #wrap}, its own host name (a UTS namespace), so nccl4j sees separate nodes
 * and bootstrap crosses real (virtual) links. Needs root, {@code ip} and {@code unshare}.
 *
 * <p>Addresses come from 198.18.0.0/15 (RFC 2544, reserved for benchmarks): never a real host.
 * Host i is {@code 198.18.<net>.<i+1>} with interface {@code eth0}; the bridge holds
 * {@code .254}. {@link #close()} deletes everything.
 */
public final class NetnsHosts implements AutoCloseable {
    /** Sets made by this process so far. */
    private static final AtomicInteger SETS = new AtomicInteger();
    private final String tag;
    private final int net;
    private final int count;
    private final List<String> created = new ArrayList<>();
    private boolean bridgeUp;

    private NetnsHosts(int count) {
        long pid = ProcessHandle.current().pid();
        this.net = (int) (pid % 250) + 1;
        // Unique within the process (a counter, two base-36 digits): a name from the clock once
        // matched an earlier set's whose veth the kernel had not removed yet ("File exists").
        String seq = Integer.toString(SETS.getAndIncrement() % 1296, 36);
        this.tag = "n4j" + Long.toString(pid % 100000, 36) + (seq.length() == 1 ? "0" : "") + seq;
        this.count = count;
    }

    /**
     * @return why namespaces cannot be made here, or {@code null} if they can
     */
    public static String unavailableReason() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "network namespace hosts need root";
        }
        for (String tool : List.of("ip", "unshare", "hostname")) {
            if (!onPath(tool)) {
                return tool + " is not installed (Debian: iproute2 / util-linux / hostname)";
            }
        }
        return null;
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
            if (new java.io.File(dir, tool).canExecute()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Creates the bridge and {@code count} namespace hosts.
     *
     * @param count number of hosts
     * @return the hosts
     * @throws IOException if a command fails (everything created so far is removed)
     */
    public static NetnsHosts create(int count) throws IOException {
        NetnsHosts h = new NetnsHosts(count);
        try {
            h.setUp();
            return h;
        } catch (IOException | RuntimeException e) {
            h.close();
            throw e;
        }
    }

    private void setUp() throws IOException {
        String br = tag + "br";
        sh("ip", "link", "add", br, "type", "bridge");
        bridgeUp = true;
        sh("ip", "addr", "add", "198.18." + net + ".254/24", "dev", br);
        sh("ip", "link", "set", br, "up");
        for (int i = 0; i < count; i++) {
            String ns = namespace(i);
            sh("ip", "netns", "add", ns);
            created.add(ns);
            String outside = outsideEnd(i);
            sh("ip", "link", "add", outside, "type", "veth", "peer", "name", "eth0", "netns", ns);
            sh("ip", "link", "set", outside, "master", br);
            sh("ip", "link", "set", outside, "up");
            sh("ip", "-n", ns, "addr", "add", address(i) + "/24", "dev", "eth0");
            sh("ip", "-n", ns, "link", "set", "eth0", "up");
            sh("ip", "-n", ns, "link", "set", "lo", "up");
        }
    }

    /**
     * @param i host index
     * @return its namespace name
     */
    public String namespace(int i) {
        return tag + "h" + i;
    }

    /** @return the bridge-side end of host {@code i}'s veth pair */
    private String outsideEnd(int i) {
        return tag + "v" + i;
    }

    /**
     * @param i host index
     * @return its address
     */
    public String address(int i) {
        return "198.18." + net + "." + (i + 1);
    }

    /**
     * @param i host index
     * @return its host name
     */
    public String hostname(int i) {
        return tag + "-host" + i;
    }

    /**
     * The command prefix that runs a program on host {@code i}: in its network namespace, in a
     * new UTS namespace carrying its host name.
     *
     * @param i host index
     * @return the prefix; append the program and its arguments
     */
    public List<String> wrap(int i) {
        return List.of("ip", "netns", "exec", namespace(i), "unshare", "--uts", "--",
                "sh", "-c", "hostname " + hostname(i) + " && exec \"$0\" \"$@\"");
    }

    /**
     * Takes host {@code i}'s link down (a pulled cable: packets to and from it are lost) or up again.
     *
     * @param i  host index
     * @param up the state to set
     * @throws IOException if {@code ip link set} fails
     */
    public void link(int i, boolean up) throws IOException {
        sh("ip", "-n", namespace(i), "link", "set", "eth0", up ? "up" : "down");
    }

    @Override
    public void close() {
        for (int i = 0; i < created.size(); i++) {
            // The pair goes with it; left to the namespace's end, the outside end was seen to
            // outlive the deleted namespace (and then block a later set's name).
            quietly("ip", "link", "delete", outsideEnd(i));
        }
        for (String ns : created) {
            quietly("ip", "netns", "delete", ns);
        }
        created.clear();
        if (bridgeUp) {
            quietly("ip", "link", "delete", tag + "br");
            bridgeUp = false;
        }
    }

    private static void quietly(String... cmd) {
        try {
            sh(cmd);
        } catch (IOException ignored) {
            // Cleanup goes on with the next item.
        }
    }

    private static void sh(String... cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " did not finish in 20 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted: " + String.join(" ", cmd), e);
        }
        if (p.exitValue() != 0) {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            throw new IOException(String.join(" ", cmd) + " failed (" + p.exitValue() + "): " + out);
        }
    }
}
