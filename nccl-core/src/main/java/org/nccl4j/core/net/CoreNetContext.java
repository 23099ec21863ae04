package org.nccl4j.core.net;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import org.nccl4j.core.debug.DebugLog;
import org.nccl4j.core.debug.Level;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Param;
import org.nccl4j.core.param.Params;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.NetLogger;

/**
 * What nccl4j hands plugins at init: its debug log and its parameter precedence.
 */
final class CoreNetContext implements NetContext {
    private final Config config;
    private final NetLogger logger;
    /** Parameter → value it had when read ({@code null}: unset); a TreeMap because values may be null. */
    private final Map<String, String> reads = java.util.Collections.synchronizedMap(new java.util.TreeMap<>());

    CoreNetContext(Config config) {
        this.config = config;
        DebugLog log = Log.get();
        this.logger = new NetLogger() {
            @Override
            public void log(int level, long subsystem, String message) {
                log.log(toLevel(level), subsystem, () -> message);
            }

            @Override
            public boolean enabled(int level) {
                return log.enabled(toLevel(level), NetLogger.NET);
            }
        };
    }

    private static Level toLevel(int level) {
        Level[] all = Level.values();
        return level >= 0 && level < all.length ? all[level] : Level.INFO;
    }

    @Override
    public NetLogger logger() {
        return logger;
    }

    @Override
    public String param(String ncclName) {
        String v = value(config, ncclName);
        Param p = Params.find(ncclName);
        // Kept to compare the settings of later communicators, and printed then: never a secret.
        reads.put(ncclName, v != null && p != null && Params.isSecret(p) ? "(hidden, sha-256 " + fingerprint(v) + ")" : v);
        return v;
    }

    private static String fingerprint(String secret) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            return "?"; // every JDK has SHA-256
        }
    }

    /** @return every parameter read through {@link #param} so far, with the value it had ({@code null}: unset) */
    Map<String, String> reads() {
        synchronized (reads) {
            return java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(reads));
        }
    }

    /** @return what {@link #param} gives for {@code ncclName} under {@code config} */
    static String value(Config config, String ncclName) {
        Param p = Params.find(ncclName);
        if (p != null) {
            return config.string(p);
        }
        // Plugins may read parameters nccl4j does not know; give them the same precedence
        // minus the registry's default.
        String prop = System.getProperty(Param.propertyName(ncclName));
        if (prop != null) {
            return prop;
        }
        String env = System.getenv(ncclName);
        return env == null || env.isEmpty() ? null : env;
    }
}
