package org.nccl4j.net.ext;

import java.util.List;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.NetProvider;

/**
 * Registers native NCCL net plugins with nccl4j's initNet, tried first (priority
 * {@value #PRIORITY}, before IB and Socket). The library is the one {@code NCCL_NET_PLUGIN} names
 * ({@link PluginLibrary}), else {@code libnccl-net.so}.
 *
 * <p>{@link #name()} is the plugin's own name (its struct's {@code name} field, what
 * {@code NCCL_NET} matches), so it loads the library (dlopen and symbol probe, no init) the
 * first time it is asked, as NCCL loads the plugin before matching {@code NCCL_NET}; without a
 * usable plugin it is {@value #UNLOADED_NAME}. Because the provider has no {@link NetContext}
 * yet, {@code name()} reads {@code NCCL_NET_PLUGIN} from {@code -Dnccl.net.plugin} or the
 * environment; {@link Net#init} uses the context's value (nccl4j's full precedence).
 *
 * <p>{@link #describe()} reports the search: libraries tried with
 * dlerror's text, symbol versions found, the plugin's name and its init outcome. nccl4j's
 * initNet adds the first line to the candidate's status and {@code nccl4j doctor} prints all.
 */
public final class ExtNetProvider implements NetProvider {
    /** Where initNet tries native plugins: before IB (200) and Socket (300). */
    public static final int PRIORITY = 100;
    /** The name while no plugin is loaded. */
    public static final String UNLOADED_NAME = "NetPlugin";

    private final boolean fixed;
    private final String spec;

    /** For {@link java.util.ServiceLoader}: the plugin {@code NCCL_NET_PLUGIN} names. */
    public ExtNetProvider() {
        this.fixed = false;
        this.spec = null;
    }

    /**
     * A provider for one plugin, whatever {@code NCCL_NET_PLUGIN} says.
     *
     * @param pluginSpec a name ({@code x} for {@code libnccl-net-x.so}), a path, or {@code null}
     *                   for {@code libnccl-net.so}
     */
    public ExtNetProvider(String pluginSpec) {
        this.fixed = true;
        this.spec = pluginSpec;
    }

    private String spec() {
        return fixed ? spec : NetContext.ofEnvironment((l, s, m) -> { }).param("NCCL_NET_PLUGIN");
    }

    private PluginLoad load() {
        return PluginRegistry.load(spec());
    }

    @Override
    public String name() {
        String n = load().pluginName();
        return n == null ? UNLOADED_NAME : n;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public Net create() {
        return new NativeNet(fixed, spec(), name());
    }

    /**
     * @return the plugin search: first line the outcome (the plugin and its init state, or why
     *     there is none), then libraries tried, symbols found and the init outcome
     */
    @Override
    public List<String> describe() {
        return load().report();
    }

    /** @return whether a plugin library loaded and exports a usable {@code ncclNetPlugin} struct */
    public boolean loaded() {
        return load().loaded();
    }
}
