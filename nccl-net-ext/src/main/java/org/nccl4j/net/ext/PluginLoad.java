package org.nccl4j.net.ext;

import java.util.ArrayList;
import java.util.List;

/**
 * The outcome of searching for a plugin for one value of {@code NCCL_NET_PLUGIN}: every library
 * tried and dlerror's text for each, the {@code ncclNetPlugin}/{@code ncclCollNetPlugin}
 * versions found, and either the loaded plugin or why there is none.
 *
 * @param spec     the value of {@code NCCL_NET_PLUGIN}, or {@code null}
 * @param attempts one line per library tried, e.g. {@code libnccl-net.so: cannot open shared object file ...}
 * @param notUsed  why older symbols the library exports are not used ({@link NetAbi#notUsed})
 * @param plugin   the plugin, or {@code null}
 * @param failure  why there is no plugin, or {@code null}
 */
record PluginLoad(String spec, List<String> attempts, List<String> notUsed, LoadedPlugin plugin, String failure) {
    PluginLoad {
        notUsed = List.copyOf(notUsed);
    }

    /** A search that found no older symbols. */
    PluginLoad(String spec, List<String> attempts, LoadedPlugin plugin, String failure) {
        this(spec, attempts, List.of(), plugin, failure);
    }

    /** @return whether a plugin loaded (its init may still fail) */
    boolean loaded() {
        return plugin != null;
    }

    /** @return the plugin's own name (its struct's {@code name}), or {@code null} */
    String pluginName() {
        return plugin == null ? null : plugin.name;
    }

    /**
     * @return the INFO lines NCCL would log for this search, e.g.
     *     {@code NET/Plugin : Plugin load (libnccl-net-x.so) returned ... : ...}
     */
    List<String> logLines() {
        List<String> lines = new ArrayList<>();
        lines.add("NET/Plugin : " + (plugin == null ? failure : "Loaded net plugin " + plugin.describe()));
        notUsed.forEach(n -> lines.add("NET/Plugin : " + n));
        if (plugin != null && plugin.collNetVersions.isEmpty()) {
            lines.add("NET/Plugin : Failed to find ncclCollNetPlugin symbol (v4 to v10) in " + plugin.library);
        } else if (plugin != null) {
            lines.add("NET/Plugin : " + plugin.library + " exports ncclCollNetPlugin " + versions(plugin.collNetVersions)
                    + "; nccl4j does not adapt CollNet plugins yet");
        }
        return lines;
    }

    /** @return the search in full, for {@code nccl4j doctor}: first line the summary, then details */
    List<String> report() {
        List<String> out = new ArrayList<>();
        out.add(plugin == null ? failure : plugin.describe() + ", " + plugin.initStatus());
        out.add("NCCL_NET_PLUGIN=" + (spec == null ? "(unset)" : spec) + "; libraries tried:");
        for (String a : attempts) {
            out.add("  " + a);
        }
        out.addAll(notUsed);
        if (plugin != null) {
            out.add("ncclNetPlugin symbols: " + versions(plugin.netVersions) + ", using v" + plugin.abi.version
                    + "; plugin name \"" + plugin.name + "\" (what NCCL_NET matches)");
            out.add("ncclCollNetPlugin symbols: " + (plugin.collNetVersions.isEmpty() ? "none"
                    : versions(plugin.collNetVersions) + " (found; not adapted)"));
            out.add(plugin.initStatus());
        }
        return out;
    }

    static String versions(List<Integer> vs) {
        if (vs.isEmpty()) {
            return "none";
        }
        StringBuilder b = new StringBuilder();
        for (int v : vs) {
            b.append(b.isEmpty() ? "" : " ").append('v').append(v);
        }
        return b.toString();
    }
}
