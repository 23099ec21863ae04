package org.nccl4j.net.spi;

/**
 * Finds and creates a network plugin. Registered for {@link java.util.ServiceLoader}.
 *
 * <p>Creating a provider must be cheap and must not touch native libraries or the network;
 * that work belongs in {@link Net#init}.
 */
public interface NetProvider {
    /** The SPI version this interface describes; it grows when methods are added. */
    int SPI_VERSION = 1;

    /** @return the network's name, matched exactly by {@code NCCL_NET} (e.g. {@code "Socket"}, {@code "IB"}) */
    String name();

    /**
     * @return the order in which initNet tries providers: lower first. Native plugins use 100,
     *     IB 200, Socket 300; third-party Java plugins that should win over the built-in ones
     *     return less than 200.
     */
    int priority();

    /** @return the SPI version the plugin was written against */
    default int spiVersion() {
        return SPI_VERSION;
    }

    /**
     * What the provider found while looking for its network, for initNet's candidate list (the
     * first line) and {@code nccl4j doctor} (all lines): e.g. the libraries a native plugin
     * loader tried and why each failed.
     *
     * @return lines, none when there is nothing to say
     */
    default java.util.List<String> describe() {
        return java.util.List.of();
    }

    /** @return a new, uninitialised network */
    Net create();

    /**
     * @return a new, uninitialised collective network ({@code ncclCollNet}), or {@code null} if
     *     this plugin has none
     */
    default CollNet createCollNet() {
        return null;
    }
}
