package org.nccl4j.net.spi;

/**
 * Where a plugin writes log lines ({@code ncclDebugLogger_t}); nccl4j prints them in NCCL's
 * format when {@code NCCL_DEBUG} and {@code NCCL_DEBUG_SUBSYS} let them through.
 */
@FunctionalInterface
public interface NetLogger {
    /** Level: version banner. */
    int VERSION = 1;
    /** Level: warning. */
    int WARN = 2;
    /** Level: information. */
    int INFO = 3;
    /** Level: abort. */
    int ABORT = 4;
    /** Level: trace. */
    int TRACE = 5;
    /** Subsystem flag: initialisation. */
    long INIT = 1;
    /** Subsystem flag: networking. */
    long NET = 16;

    /**
     * @param level     one of the level constants
     * @param subsystem subsystem flags ({@link #INIT}, {@link #NET}, ...)
     * @param message   the formatted message
     */
    void log(int level, long subsystem, String message);

    /**
     * @param level   level, e.g. {@link #INFO}
     * @return whether a message at that level for {@link #NET} would be printed; plugins use it
     *     to skip formatting
     */
    default boolean enabled(int level) {
        return true;
    }
}
