package org.nccl4j.core.param;

/** Where a parameter's effective value came from, highest precedence first. */
public enum Source {
    /** Set on the communicator's {@link org.nccl4j.CommConfig}. */
    EXPLICIT,
    /** A {@code -Dnccl.*} system property. */
    SYSTEM_PROPERTY,
    /** An {@code NCCL_*} environment variable. */
    ENVIRONMENT,
    /** {@code NCCL_CONF_FILE}, or {@code ~/.nccl.conf} when that is unset. */
    USER_FILE,
    /** {@code /etc/nccl.conf}. */
    SYSTEM_FILE,
    /** The parameter's default. */
    DEFAULT
}
