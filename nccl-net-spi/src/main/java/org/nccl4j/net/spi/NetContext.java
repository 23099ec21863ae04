package org.nccl4j.net.spi;

/**
 * What nccl4j hands a network plugin at {@link Net#init}: its logger and its parameters.
 */
public interface NetContext {
    /** @return where the plugin's log lines go */
    NetLogger logger();

    /**
     * Looks up a parameter with nccl4j's precedence (system property {@code nccl.*}, environment
     * {@code NCCL_*}, configuration files). Plugins read their settings here rather than from
     * {@link System#getenv} so users can set them every way nccl4j supports.
     *
     * @param ncclName the {@code NCCL_*} name, e.g. {@code NCCL_SOCKET_IFNAME}
     * @return the value, or {@code null} if unset
     */
    String param(String ncclName);

    /**
     * A context that reads parameters from {@code -Dnccl.*} system properties and the
     * environment only; for tests and plugins used outside nccl4j.
     *
     * @param logger where log lines go
     * @return the context
     */
    static NetContext ofEnvironment(NetLogger logger) {
        return new NetContext() {
            @Override
            public NetLogger logger() {
                return logger;
            }

            @Override
            public String param(String ncclName) {
                String prop = System.getProperty(ncclName.toLowerCase(java.util.Locale.ROOT).replace('_', '.'));
                if (prop != null) {
                    return prop;
                }
                String env = System.getenv(ncclName);
                return env == null || env.isEmpty() ? null : env;
            }
        };
    }
}
