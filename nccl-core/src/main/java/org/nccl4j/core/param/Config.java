package org.nccl4j.core.param;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import org.nccl4j.CommConfig;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * Reads parameters with nccl4j's precedence: explicit config &gt; system property &gt; environment
 * &gt; {@code NCCL_CONF_FILE} (or {@code ~/.nccl.conf}) &gt; {@code /etc/nccl.conf} &gt; default.
 *
 * <p>The process-wide view is {@link #global()}; a communicator's view adds its
 * {@link CommConfig} on top with {@link #with(CommConfig)}. Values are read when asked, so a
 * test may construct a view over its own environment.
 */
public final class Config {
    private static final Path SYSTEM_FILE = Path.of("/etc/nccl.conf");
    private static volatile Config global;

    private final Map<String, String> explicit;
    private final Properties properties;
    private final Map<String, String> environment;
    private final ConfFile userFile;
    private final ConfFile systemFile;

    /**
     * @param explicit    explicit settings by {@code NCCL_*} name
     * @param properties  system properties
     * @param environment environment variables
     * @param userFile    the user configuration file
     * @param systemFile  the system configuration file
     */
    public Config(Map<String, String> explicit, Properties properties, Map<String, String> environment,
                  ConfFile userFile, ConfFile systemFile) {
        this.explicit = Map.copyOf(explicit);
        this.properties = Objects.requireNonNull(properties, "properties");
        this.environment = Objects.requireNonNull(environment, "environment");
        this.userFile = Objects.requireNonNull(userFile, "userFile");
        this.systemFile = Objects.requireNonNull(systemFile, "systemFile");
    }

    /**
     * Builds a view over an environment and system properties, locating the configuration files
     * as NCCL does ({@code NCCL_CONF_FILE} replaces {@code $HOME/.nccl.conf}).
     *
     * @param properties  system properties
     * @param environment environment variables
     * @param etcFile     the system-wide file, normally {@code /etc/nccl.conf}
     * @return the view
     */
    public static Config of(Properties properties, Map<String, String> environment, Path etcFile) {
        String conf = properties.getProperty(Param.propertyName("NCCL_CONF_FILE"), environment.get("NCCL_CONF_FILE"));
        Path user;
        if (conf != null && !conf.isEmpty()) {
            user = Path.of(conf);
        } else {
            String home = environment.getOrDefault("HOME", properties.getProperty("user.home", ""));
            user = home.isEmpty() ? null : Path.of(home, ".nccl.conf");
        }
        return new Config(Map.of(), properties, environment, ConfFile.read(user), ConfFile.read(etcFile));
    }

    /** @return the process-wide view: system properties, environment and the configuration files */
    public static Config global() {
        Config c = global;
        if (c == null) {
            synchronized (Config.class) {
                c = global;
                if (c == null) {
                    c = of(System.getProperties(), System.getenv(), SYSTEM_FILE);
                    global = c;
                }
            }
        }
        return c;
    }

    /**
     * @param config a communicator's settings
     * @return this view with the config's parameters on top
     * @throws NcclException if the config names an unknown parameter
     */
    public Config with(CommConfig config) {
        if (config == null || config.params().isEmpty()) {
            return this;
        }
        Map<String, String> merged = new HashMap<>(explicit);
        config.params().forEach((name, value) -> merged.put(Params.require(envName(name)).envName(), value));
        return new Config(merged, properties, environment, userFile, systemFile);
    }

    private static String envName(String name) {
        return name.startsWith("nccl") ? name.toUpperCase(Locale.ROOT).replace('.', '_') : name;
    }

    /**
     * @param param a parameter
     * @return its effective value and source
     */
    public Setting setting(Param param) {
        String name = param.envName();
        String v = explicit.get(name);
        if (v != null) {
            return new Setting(param, v, Source.EXPLICIT, "CommConfig");
        }
        v = properties.getProperty(param.propertyName());
        if (v != null) {
            return new Setting(param, v, Source.SYSTEM_PROPERTY, "-D" + param.propertyName());
        }
        v = environment.get(name);
        if (v != null && !v.isEmpty()) {
            return new Setting(param, v, Source.ENVIRONMENT, name);
        }
        v = userFile.entries().get(name);
        if (v != null) {
            return new Setting(param, v, Source.USER_FILE, String.valueOf(userFile.path()));
        }
        v = systemFile.entries().get(name);
        if (v != null) {
            return new Setting(param, v, Source.SYSTEM_FILE, String.valueOf(systemFile.path()));
        }
        return new Setting(param, param.defaultValue(), Source.DEFAULT, "default");
    }

    /**
     * @param param a {@link Param.Kind#STRING} parameter
     * @return its value, or {@code null} when unset
     */
    public String string(Param param) {
        return setting(param).value();
    }

    /**
     * @param param a {@link Param.Kind#INT} parameter
     * @return its value
     * @throws NcclException with {@link Result#INVALID_ARGUMENT} if the text is not an integer
     */
    public long integer(Param param) {
        if (param.kind() != Param.Kind.INT) {
            throw NcclException.of(Result.INTERNAL_ERROR, param.envName() + " is not an integer parameter", null);
        }
        Setting s = setting(param);
        return s.value() == null ? 0 : s.asLong();
    }

    /**
     * @param param an {@link Param.Kind#INT} parameter used as a flag
     * @return whether its value is non-zero
     */
    public boolean flag(Param param) {
        return integer(param) != 0;
    }

    /** @return every registered parameter's effective setting, for {@code nccl4j doctor} */
    public List<Setting> all() {
        return Params.all().stream().map(this::setting).toList();
    }
}
