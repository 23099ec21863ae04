package org.nccl4j.core.debug;

import org.nccl4j.core.param.Config;

/**
 * The process-wide {@link DebugLog}, configured from {@link Config#global()} on first use
 * (NCCL's lazy {@code ncclDebugInit}).
 */
public final class Log {
    private static volatile DebugLog log;

    private Log() {
    }

    /** @return the process-wide log */
    public static DebugLog get() {
        DebugLog l = log;
        if (l == null) {
            synchronized (Log.class) {
                l = log;
                if (l == null) {
                    l = DebugLog.fromConfig(Config.global());
                    log = l;
                }
            }
        }
        return l;
    }

    /**
     * Logs an INFO line.
     *
     * @param flags subsystems ({@link Subsys})
     * @param fmt   {@link String#format} pattern
     * @param args  its arguments
     */
    public static void info(long flags, String fmt, Object... args) {
        get().info(flags, fmt, args);
    }

    /**
     * Logs a WARN line.
     *
     * @param fmt  {@link String#format} pattern
     * @param args its arguments
     */
    public static void warn(String fmt, Object... args) {
        get().warn(fmt, args);
    }

    /**
     * Logs a TRACE line.
     *
     * @param flags subsystems
     * @param fmt   {@link String#format} pattern
     * @param args  its arguments
     */
    public static void trace(long flags, String fmt, Object... args) {
        get().trace(flags, fmt, args);
    }
}
