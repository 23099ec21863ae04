package org.nccl4j.core.debug;

import java.util.Locale;

/** NCCL's log levels ({@code ncclDebugLogLevel}), with NCCL's numbers. */
public enum Level {
    /** Nothing is printed. */
    NONE,
    /** The version banner only. */
    VERSION,
    /** Warnings. */
    WARN,
    /** Information. */
    INFO,
    /** Above INFO; no special behaviour (as NCCL 2.10). */
    ABORT,
    /** Everything, with timestamps and call sites. */
    TRACE;

    /**
     * @param text a value of {@code NCCL_DEBUG}, or {@code null}
     * @return the level; unset or unknown text is {@link #NONE} (NCCL's behaviour)
     */
    public static Level parse(String text) {
        if (text == null || text.isBlank()) {
            return NONE;
        }
        try {
            return valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return NONE;
        }
    }
}
