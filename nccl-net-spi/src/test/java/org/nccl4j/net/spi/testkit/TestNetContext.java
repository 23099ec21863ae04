package org.nccl4j.net.spi.testkit;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.NetLogger;

/**
 * A {@link NetContext} for tests: parameters from a map first, then from {@code -Dnccl.*}
 * properties and the environment; log lines kept for assertions, warnings (and everything with
 * {@code -Dnccl4j.test.verbose=true}) printed to standard error.
 */
public final class TestNetContext implements NetContext {
    private final Map<String, String> params;
    private final NetContext fallback;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final boolean verbose = Boolean.getBoolean("nccl4j.test.verbose");

    /** @param params parameters by {@code NCCL_*} name; they win over the environment */
    public TestNetContext(Map<String, String> params) {
        this.params = Map.copyOf(params);
        this.fallback = NetContext.ofEnvironment((level, subsystem, message) -> { });
    }

    @Override
    public NetLogger logger() {
        return (level, subsystem, message) -> {
            String line = levelName(level) + " " + message;
            lines.add(line);
            if (verbose || level <= NetLogger.WARN) {
                System.err.println("[net] " + line);
            }
        };
    }

    @Override
    public String param(String ncclName) {
        String value = params.get(ncclName);
        return value != null ? value : fallback.param(ncclName);
    }

    /** @return every line logged so far, each prefixed with its level ({@code INFO}, {@code WARN}, ...) */
    public List<String> lines() {
        return List.copyOf(lines);
    }

    private static String levelName(int level) {
        return switch (level) {
            case NetLogger.VERSION -> "VERSION";
            case NetLogger.WARN -> "WARN";
            case NetLogger.INFO -> "INFO";
            case NetLogger.ABORT -> "ABORT";
            case NetLogger.TRACE -> "TRACE";
            default -> "LEVEL" + level;
        };
    }
}
