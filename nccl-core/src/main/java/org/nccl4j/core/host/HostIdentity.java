package org.nccl4j.core.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Who this host and process are, as NCCL computes them: host name plus boot id for the host hash
 * ({@code NCCL_HOSTID} replaces both), pid plus pid namespace for the process hash, and the
 * {@code /dev/shm} device.
 */
public final class HostIdentity {
    private HostIdentity() {
    }

    /**
     * @return the host name of this UTS namespace (what {@code gethostname} returns), without
     *     a DNS lookup
     */
    public static String hostname() {
        String h = read("/proc/sys/kernel/hostname");
        if (h.isEmpty()) {
            h = System.getenv().getOrDefault("HOSTNAME", "localhost");
        }
        return h;
    }

    /**
     * @param hostId {@code NCCL_HOSTID}, or {@code null}
     * @return the text hashed into the host hash: host name immediately followed by the boot id,
     *     or {@code hostId} when set
     */
    public static String hostString(String hostId) {
        if (hostId != null && !hostId.isEmpty()) {
            return hostId;
        }
        return hostname() + read("/proc/sys/kernel/random/boot_id");
    }

    /** @return the text hashed into the process hash: decimal pid followed by the pid namespace link */
    public static String processString() {
        String ns = pidNamespace("self");
        return ProcessHandle.current().pid() + (ns == null ? "" : ns);
    }

    /**
     * @param pid a process id
     * @return what {@link #processString()} would be in the process {@code /proc/<pid>} shows
     *     here, or {@code null} if it cannot be read (gone, another user's, no {@code /proc}): the
     *     peer of that pid is that process only if its process hash came from this text
     */
    public static String processStringOf(long pid) {
        String ns = pidNamespace(Long.toString(pid));
        return ns == null ? null : pid + ns;
    }

    /** @return the pid namespace link of {@code /proc/<proc>}, or {@code null} where it cannot be read */
    private static String pidNamespace(String proc) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/" + proc + "/ns/pid")).toString();
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    /** @return the device number of the file system holding {@code /dev/shm}, 0 if unknown */
    public static long shmDevice() {
        try {
            Object dev = Files.getAttribute(Path.of("/dev/shm"), "unix:dev");
            return ((Number) dev).longValue();
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return 0;
        }
    }

    /**
     * NCCL's DJB2a hash: {@code h = h * 33 ^ c} over signed bytes, from 5381.
     *
     * @param bytes the input
     * @return the hash
     */
    public static long hash(byte[] bytes) {
        long h = 5381;
        for (byte b : bytes) {
            h = (h * 33) ^ (long) b;
        }
        return h;
    }

    private static String read(String path) {
        try {
            return Files.readString(Path.of(path)).strip();
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * The NUMA node of the first CPU this process may run on ({@code Cpus_allowed_list} in
     * {@code /proc/self/status}, then {@code /sys/devices/system/cpu/cpuN/nodeM}).
     *
     * @return the node, or 0 when the host shows no NUMA information
     */
    public static int numaNode() {
        try {
            int cpu = 0;
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    String list = line.substring(line.indexOf(':') + 1).trim();
                    cpu = Integer.parseInt(list.split("[-,]")[0]);
                }
            }
            try (var entries = java.nio.file.Files.list(java.nio.file.Path.of("/sys/devices/system/cpu/cpu" + cpu))) {
                return entries.map(p -> p.getFileName().toString())
                        .filter(n -> n.matches("node[0-9]+"))
                        .mapToInt(n -> Integer.parseInt(n.substring(4)))
                        .findFirst().orElse(0);
            }
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }
}
