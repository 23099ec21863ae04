package org.nccl4j.core.bootstrap;

import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.net.spi.auth.ConnectionAuth;

/** The authentication of bootstrap connections, from {@code NCCL4J_AUTH_KEY} or {@code NCCL4J_AUTH_KEY_FILE}. */
public final class BootstrapAuth {
    private BootstrapAuth() {
    }

    /**
     * @param config parameters
     * @return the authentication, or {@code null} when no key is set
     * @throws NcclException INVALID_ARGUMENT for a key that is too short, a file that cannot be
     *     read, or both parameters set
     */
    public static ConnectionAuth of(Config config) {
        try {
            return ConnectionAuth.of(config.string(Params.AUTH_KEY), config.string(Params.AUTH_KEY_FILE));
        } catch (IllegalArgumentException e) {
            throw NcclException.of(Result.INVALID_ARGUMENT, e.getMessage(),
                    "give every rank the same key of 16 bytes or more, e.g. NCCL4J_AUTH_KEY_FILE=<file with `openssl rand -hex 32`>");
        }
    }
}
