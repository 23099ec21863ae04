package org.nccl4j;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Settings for one communicator ({@code ncclConfig_t}, the Java way).
 *
 * <p>Parameters given here take precedence over system properties, the environment and
 * configuration files. Names are NCCL's ({@code NCCL_SOCKET_IFNAME}) or the property form
 * ({@code nccl.socket.ifname}).
 */
public final class CommConfig {
    /** The default deadline for communicator init, used when none is given. */
    public static final Duration DEFAULT_INIT_TIMEOUT = Duration.ofMinutes(2);

    private static final CommConfig DEFAULTS = builder().build();

    private final Map<String, String> params;
    private final Duration initTimeout;

    private CommConfig(Builder b) {
        this.params = Collections.unmodifiableMap(new LinkedHashMap<>(b.params));
        this.initTimeout = b.initTimeout;
    }

    /** @return a configuration with nothing set */
    public static CommConfig defaults() {
        return DEFAULTS;
    }

    /** @return a new builder */
    public static Builder builder() {
        return new Builder();
    }

    /** @return explicitly set parameters, by the name they were given */
    public Map<String, String> params() {
        return params;
    }

    /**
     * @return the deadline for init, or {@code null} to use {@code NCCL4J_INIT_TIMEOUT} or the
     *     default
     */
    public Duration initTimeout() {
        return initTimeout;
    }

    /** Builds a {@link CommConfig}. */
    public static final class Builder {
        private final Map<String, String> params = new LinkedHashMap<>();
        private Duration initTimeout;

        private Builder() {
        }

        /**
         * Sets a parameter for this communicator only.
         *
         * @param name  {@code NCCL_*} or {@code nccl.*} name
         * @param value its value
         * @return this builder
         */
        public Builder param(String name, String value) {
            params.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * @param timeout the longest init may take before it fails with
         *                {@link Result#TIMEOUT}; positive
         * @return this builder
         */
        public Builder initTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw NcclException.of(Result.INVALID_ARGUMENT, "init timeout " + timeout + " is not positive", null);
            }
            this.initTimeout = timeout;
            return this;
        }

        /** @return the configuration */
        public CommConfig build() {
            return new CommConfig(this);
        }
    }
}
