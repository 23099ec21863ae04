package org.nccl4j.core.param;

import java.util.Locale;
import java.util.Objects;

/**
 * One parameter ({@code NCCL_PARAM} in Java): its {@code NCCL_*} environment name, its
 * {@code nccl.*} system property, its kind, default and meaning. All parameters live in
 * {@link Params}; values are read through a {@link Config}.
 *
 * @param envName    the environment variable, e.g. {@code NCCL_SOCKET_IFNAME}
 * @param kind       how the value is parsed
 * @param defaultValue the value when nothing sets it, as text ({@code null} = unset)
 * @param meaning    one line for the README and {@code nccl4j doctor}
 * @param hostNote   why the host backend does not apply this NCCL knob, or {@code null} if it does;
 *                   setting such a knob logs a WARN at init and is flagged by {@code nccl4j doctor}
 */
public record Param(String envName, Kind kind, String defaultValue, String meaning, String hostNote) {
    /** What the README's configuration table says of a knob the host backend does not apply. */
    public static final String NOT_ON_HOST = "not applicable on the host backend: ";

    /** How a parameter's text is parsed. */
    public enum Kind {
        /** An integer parsed like C's {@code strtoll(s, NULL, 0)}: decimal, {@code 0x} hex, {@code 0} octal. */
        INT,
        /** Free text. */
        STRING
    }

    /** Validates the record. */
    public Param {
        Objects.requireNonNull(envName, "envName");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(meaning, "meaning");
        if (!envName.startsWith("NCCL_") && !envName.startsWith("NCCL4J_")) {
            throw new IllegalArgumentException("parameter " + envName + " must start with NCCL_ or NCCL4J_");
        }
        if (kind == Kind.INT && defaultValue != null) {
            IntParser.parse(envName, defaultValue);
        }
    }

    /** @return the meaning as documented: with the host note, if any */
    public String documented() {
        return hostNote == null ? meaning : meaning + "; " + NOT_ON_HOST + hostNote;
    }

    /** @return the system property name: the env name lower-cased with {@code _} as {@code .} */
    public String propertyName() {
        return propertyName(envName);
    }

    /**
     * @param envName an {@code NCCL_*} or {@code NCCL4J_*} name
     * @return its system property form, e.g. {@code nccl.socket.ifname}
     */
    public static String propertyName(String envName) {
        return envName.toLowerCase(Locale.ROOT).replace('_', '.');
    }
}
