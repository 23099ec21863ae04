package org.nccl4j.core.topo.detection;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;

/**
 * The files topology detection reads ({@code /sys}, {@code /proc/cpuinfo}) under a root
 * directory: {@code /} on a real host, a fixture tree in tests. Paths handed out are absolute
 * paths as seen from that root ("/sys/devices/..."), so the PCI walk cuts them exactly as NCCL
 * cuts the strings {@code realpath} returns.
 */
public final class SysFs {
    private static final int MAX_STR_LEN = 255;
    private final Path root;

    /**
     * @param root the directory that stands for {@code /}
     */
    public SysFs(Path root) {
        this.root = root.toAbsolutePath();
    }

    /** @return the host's own {@code /} */
    public static SysFs host() {
        return new SysFs(Path.of("/"));
    }

    /**
     * {@code ncclTopoGetStrFromSys}: up to 255 bytes of {@code dir/file} with the last byte (the
     * newline) dropped; empty when unreadable.
     *
     * @param dir  a directory ("/sys/...")
     * @param file a file name, possibly starting with "../"
     * @return the value, or ""
     */
    public String read(String dir, String file) {
        Path p = resolve(dir + "/" + file);
        byte[] buf = new byte[MAX_STR_LEN];
        int n = 0;
        try (InputStream in = Files.newInputStream(p)) {
            int r;
            while (n < buf.length && (r = in.read(buf, n, buf.length - n)) > 0) {
                n += r;
            }
        } catch (IOException | RuntimeException e) {
            n = 0;
        }
        if (n == 0) {
            Log.info(Subsys.GRAPH, "Topology detection : could not read %s/%s, ignoring", dir, file);
            return "";
        }
        return new String(buf, 0, n - 1, StandardCharsets.ISO_8859_1);
    }

    /**
     * {@code getPciPath}: the real sysfs directory of a PCI device.
     *
     * @param busId "dddd:bb:dd.f"
     * @return "/sys/devices/pci..../dddd:bb:dd.f", or {@code null} when the device has none
     */
    public String pciPath(String busId) {
        String id = busId.toLowerCase(Locale.ROOT);
        if (id.length() < 12) {
            return null;
        }
        return realPath("/sys/class/pci_bus/" + id.substring(0, 7) + "/../../" + id.substring(0, 12));
    }

    /**
     * {@code ncclTopoGetSubsystem}: the last component of {@code realpath(path/subsystem)}.
     *
     * @param path a device directory
     * @return e.g. "pci", or "" when there is none
     */
    public String subsystem(String path) {
        String real = realPath(path + "/subsystem");
        return real == null ? "" : real.substring(real.lastIndexOf('/') + 1);
    }

    /**
     * @param path an absolute path as seen from the root
     * @return its real path as seen from the root, or {@code null} if it does not exist
     */
    public String realPath(String path) {
        try {
            Path real = resolve(path).toRealPath();
            if (!real.startsWith(root)) {
                return null;
            }
            String rel = root.relativize(real).toString();
            return "/" + rel;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * @param path an absolute path as seen from the root
     * @return the file's text, or "" when unreadable
     */
    public String text(String path) {
        try {
            return Files.readString(resolve(path), StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    private Path resolve(String path) {
        return root.resolve(path.startsWith("/") ? path.substring(1) : path);
    }
}
