package org.nccl4j.core.topo.paths;

import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.topo.system.PathType;
import org.nccl4j.core.topo.xml.CNum;

/**
 * The user settings the path code obeys, read once (NCCL caches them per process).
 *
 * @param nvbDisable  {@code NCCL_NVB_DISABLE}: no routes through an intermediate GPU
 * @param p2pLevel    {@code NCCL_P2P_DISABLE}/{@code NCCL_P2P_LEVEL} as a path type, -2 if unset
 * @param gdrLevel    {@code NCCL_NET_GDR_LEVEL} as a path type, -2 if unset
 * @param netGdrRead  {@code NCCL_NET_GDR_READ} (-2: automatic)
 * @param shmDisable  {@code NCCL_SHM_DISABLE}
 */
public record PathPolicy(boolean nvbDisable, int p2pLevel, int gdrLevel, int netGdrRead, boolean shmDisable) {
    private static final int[] LEVELS_OLD_TO_NEW = {PathType.LOC, PathType.PIX, PathType.PXB, PathType.PHB, PathType.SYS, PathType.SYS};

    /** NCCL's defaults (nothing set). */
    public static final PathPolicy DEFAULT = new PathPolicy(false, -2, -2, -2, false);

    /**
     * Reads the settings.
     *
     * @param config the configuration
     * @return the policy
     */
    public static PathPolicy from(Config config) {
        return new PathPolicy(config.integer(Params.NVB_DISABLE) != 0,
                level(config.string(Params.P2P_DISABLE), config.string(Params.P2P_LEVEL), "NCCL_P2P_LEVEL"),
                level(null, config.string(Params.NET_GDR_LEVEL), "NCCL_NET_GDR_LEVEL"),
                (int) config.integer(Params.NET_GDR_READ), config.integer(Params.SHM_DISABLE) == 1);
    }

    /**
     * {@code ncclGetLevel}: {@code disable == 1} means LOC; else a path type name or an old-style
     * number (0..5); -2 when unset or unknown.
     *
     * @param disable the disable variable's value or {@code null}
     * @param level   the level variable's value or {@code null}
     * @param name    the level variable's name (for the log)
     * @return the level
     */
    public static int level(String disable, String level, String name) {
        int l = -1;
        if (disable != null && CNum.strtol(disable, 0) == 1) {
            l = 0;
        }
        if (l == -1 && level != null) {
            l = PathType.of(level);
            if (l == -1 && !level.isEmpty() && level.charAt(0) >= '0' && level.charAt(0) <= '9') {
                int old = (int) CNum.strtol(level, 0);
                l = LEVELS_OLD_TO_NEW[Math.min(old, LEVELS_OLD_TO_NEW.length - 1)];
            }
        }
        if (l >= 0) {
            Log.info(Subsys.ALL, "%s set by environment to %s", name, PathType.str(l));
        }
        return l >= 0 ? l : -2;
    }
}
