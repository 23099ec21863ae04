package org.nccl4j.net.ext;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.nccl4j.net.spi.nativelib.DlLoader;

/**
 * The process's plugin searches, cached: each value of {@code NCCL_NET_PLUGIN} is searched once
 * (dlopen, signal check, symbol probe), and each loaded library (by dlopen handle, so two
 * spellings of one file share it) is bound and initialised once.
 */
final class PluginRegistry {
    private static final Map<String, PluginLoad> BY_SPEC = new HashMap<>();
    private static final Map<Long, PluginLoad> BY_HANDLE = new HashMap<>();

    private PluginRegistry() {
    }

    /**
     * @param spec the value of {@code NCCL_NET_PLUGIN}, or {@code null}
     * @return the (cached) outcome of the search
     */
    static synchronized PluginLoad load(String spec) {
        String key = spec == null ? "" : spec;
        PluginLoad cached = BY_SPEC.get(key);
        if (cached == null) {
            cached = search(spec);
            BY_SPEC.put(key, cached);
        }
        return cached;
    }

    private static PluginLoad search(String spec) {
        List<String> attempts = new ArrayList<>();
        if (PluginLibrary.disabled(spec)) {
            return new PluginLoad(spec, attempts, null, "plugin loading disabled by NCCL_NET_PLUGIN=" + spec);
        }
        List<String> libraries = PluginLibrary.candidates(spec);
        String lastFailure = null;
        for (String lib : libraries) {
            SignalGuard.Snapshot before = SignalGuard.snapshot();
            DlLoader.Opened o = DlLoader.open(lib);
            List<String> replaced = before.restoreChanged();
            if (!replaced.isEmpty()) {
                String msg = SignalGuard.message(lib, "dlopen", replaced);
                attempts.add(lib + ": " + (o.ok() ? "loaded, but " : "failed (" + o.error() + "), and ") + "it replaced the JVM's "
                        + String.join("/", replaced) + " handler (restored)");
                return new PluginLoad(spec, attempts, null, msg);
            }
            if (!o.ok()) {
                attempts.add(lib + ": " + o.error());
                lastFailure = (spec == null || spec.isBlank() ? "No plugin found (" + lib + "): " : "Plugin load (" + lib + ") failed: ")
                        + o.error();
                continue;
            }
            PluginLoad same = BY_HANDLE.get(o.handle().address());
            if (same != null) {
                attempts.add(lib + ": loaded (same library as " + same.plugin().library + ")");
                return new PluginLoad(spec, attempts, same.notUsed(), same.plugin(), null);
            }
            PluginLoad result = probe(spec, attempts, lib, o.handle());
            if (result.plugin() != null) {
                BY_HANDLE.put(o.handle().address(), result);
            }
            return result;
        }
        return new PluginLoad(spec, attempts, null, lastFailure == null ? "no plugin library to try" : lastFailure);
    }

    private static boolean exports(MemorySegment handle, String symbol) {
        return !DlLoader.symbol(handle, symbol).equals(MemorySegment.NULL);
    }

    private static PluginLoad probe(String spec, List<String> attempts, String lib, MemorySegment handle) {
        List<Integer> net = new ArrayList<>();
        List<Integer> coll = new ArrayList<>();
        for (int v : NetAbi.VERSIONS) {
            if (exports(handle, "ncclNetPlugin_v" + v)) {
                net.add(v);
            }
            if (exports(handle, "ncclCollNetPlugin_v" + v)) {
                coll.add(v);
            }
        }
        List<Integer> old = new ArrayList<>();
        List<String> notUsed = new ArrayList<>();
        for (int v : NetAbi.OLD_VERSIONS) {
            if (exports(handle, "ncclNetPlugin_v" + v)) {
                old.add(v);
                notUsed.add(NetAbi.notUsed(v));
            }
        }
        List<Integer> all = new ArrayList<>(net);
        all.addAll(old);
        attempts.add(lib + ": loaded; ncclNetPlugin " + PluginLoad.versions(all) + ", ncclCollNetPlugin "
                + PluginLoad.versions(coll));
        if (net.isEmpty()) {
            String older = old.isEmpty() ? "" : "; found only " + PluginLoad.versions(old);
            return new PluginLoad(spec, attempts, notUsed, null, "no ncclNetPlugin symbol in " + lib
                    + " (looked for ncclNetPlugin_v10 down to ncclNetPlugin_v4" + older + ")");
        }
        NetAbi abi = NetAbi.of(net.get(0));
        MemorySegment struct = DlLoader.symbol(handle, abi.symbol());
        String name = PluginTable.name(struct, abi);
        if (name == null || name.isBlank()) {
            return new PluginLoad(spec, attempts, notUsed, null, abi.symbol() + " in " + lib + " has no name");
        }
        PluginTable table;
        try {
            table = new PluginTable(abi, struct);
        } catch (IllegalArgumentException e) {
            return new PluginLoad(spec, attempts, notUsed, null, "unusable " + abi.symbol() + " in " + lib + ": " + e.getMessage());
        }
        return new PluginLoad(spec, attempts, notUsed,
                new LoadedPlugin(lib, handle, abi, table, name, List.copyOf(all), List.copyOf(coll)), null);
    }
}
