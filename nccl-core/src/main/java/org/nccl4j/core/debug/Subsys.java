package org.nccl4j.core.debug;

import java.util.Locale;

/** NCCL's log subsystems ({@code ncclDebugLogSubSys}) as bit flags, with NCCL's values. */
public final class Subsys {
    /** Initialisation. */
    public static final long INIT = 1;
    /** Collectives. */
    public static final long COLL = 2;
    /** Peer-to-peer transport. */
    public static final long P2P = 4;
    /** Shared-memory transport. */
    public static final long SHM = 8;
    /** Networking. */
    public static final long NET = 16;
    /** Topology and graph search. */
    public static final long GRAPH = 32;
    /** Tuning model. */
    public static final long TUNING = 64;
    /** Environment and parameters. */
    public static final long ENV = 128;
    /** Allocations. */
    public static final long ALLOC = 256;
    /** API calls. */
    public static final long CALL = 512;
    /** Everything. */
    public static final long ALL = ~0L;

    private static final String[] NAMES = {"INIT", "COLL", "P2P", "SHM", "NET", "GRAPH", "TUNING", "ENV", "ALLOC", "CALL"};

    private Subsys() {
    }

    /**
     * Parses {@code NCCL_DEBUG_SUBSYS}: a comma list of names (case-insensitive); a leading
     * {@code ^} starts from all subsystems and removes the listed ones. Unknown names are ignored
     * as NCCL does.
     *
     * @param text the value, or {@code null} for the default (INIT)
     * @return the mask
     */
    public static long parse(String text) {
        if (text == null) {
            return INIT;
        }
        String s = text.strip();
        boolean invert = s.startsWith("^");
        if (invert) {
            s = s.substring(1);
        }
        long mask = 0;
        for (String part : s.split(",")) {
            mask |= flag(part.strip().toUpperCase(Locale.ROOT));
        }
        return invert ? ~mask : mask;
    }

    private static long flag(String name) {
        if (name.equals("ALL")) {
            return ALL;
        }
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i].equals(name)) {
                return 1L << i;
            }
        }
        return 0;
    }
}
