package org.nccl4j.net.ext;

import java.util.List;
import java.util.Locale;

/**
 * Which library files a value of {@code NCCL_NET_PLUGIN} names, as NCCL resolves it: unset or
 * empty means {@code libnccl-net.so}; a value containing {@code '/'} is a path used as is; any
 * other value {@code x} means {@code libnccl-net-x.so} (searched by the dynamic linker:
 * {@code LD_LIBRARY_PATH}, the cache, the default directories). {@code none} turns plugin
 * loading off.
 */
public final class PluginLibrary {
    /** The library NCCL loads when {@code NCCL_NET_PLUGIN} is unset. */
    public static final String DEFAULT = "libnccl-net.so";

    private PluginLibrary() {
    }

    /**
     * @param spec the value of {@code NCCL_NET_PLUGIN}, or {@code null}
     * @return whether the value turns loading off ({@code none}, any case)
     */
    public static boolean disabled(String spec) {
        return spec != null && spec.trim().toLowerCase(Locale.ROOT).equals("none");
    }

    /**
     * @param spec the value of {@code NCCL_NET_PLUGIN}, or {@code null}
     * @return the names to pass to {@code dlopen}, in order (empty if disabled)
     */
    public static List<String> candidates(String spec) {
        if (disabled(spec)) {
            return List.of();
        }
        if (spec == null || spec.isBlank()) {
            return List.of(DEFAULT);
        }
        String s = spec.trim();
        if (s.indexOf('/') >= 0) {
            return List.of(s);
        }
        if (s.startsWith("libnccl-net") && s.endsWith(".so")) {
            // Already a file name: NCCL 2.19+ accepts it too.
            return List.of(s);
        }
        return List.of("libnccl-net-" + s + ".so");
    }
}
