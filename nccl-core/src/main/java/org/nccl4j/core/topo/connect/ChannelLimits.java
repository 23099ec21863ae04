package org.nccl4j.core.topo.connect;

import org.nccl4j.core.debug.Log;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.topo.search.TopoGraph;

/**
 * The user's channel bounds as {@code ncclMinNchannels()} / {@code ncclMaxNchannels()} resolve
 * them: -2 (unset) means 0 and {@link TopoGraph#MAXCHANNELS}; the minimum is clamped to
 * [0, MAXCHANNELS], the maximum to [1, MAXCHANNELS].
 *
 * @param min channels that Postset duplicates up to
 * @param max channels that Postset truncates to
 */
public record ChannelLimits(int min, int max) {
    /** NCCL's "parameter not set" value. */
    private static final int UNSET = -2;

    /** NCCL's defaults: no floor, {@link TopoGraph#MAXCHANNELS} cap. */
    public static final ChannelLimits DEFAULT = new ChannelLimits(0, TopoGraph.MAXCHANNELS);

    /**
     * Reads {@code NCCL_MIN_NCHANNELS} and {@code NCCL_MAX_NCHANNELS}, each falling back to its
     * legacy name ({@code NCCL_MIN_NRINGS}, {@code NCCL_MAX_NRINGS}) when unset, as NCCL does.
     *
     * @param config parameters
     * @return the resolved bounds
     */
    public static ChannelLimits fromConfig(Config config) {
        int min = (int) config.integer(Params.MIN_NCHANNELS);
        int max = (int) config.integer(Params.MAX_NCHANNELS);
        return of(min != UNSET ? min : (int) config.integer(Params.MIN_NRINGS),
                max != UNSET ? max : (int) config.integer(Params.MAX_NRINGS));
    }

    /**
     * @param minParam the raw minimum, -2 if unset
     * @param maxParam the raw maximum, -2 if unset
     * @return the resolved bounds, with NCCL's warnings
     */
    public static ChannelLimits of(int minParam, int maxParam) {
        int min = minParam == UNSET ? 0 : minParam;
        if (min > TopoGraph.MAXCHANNELS) {
            Log.warn("User asked for a minimum of %d channels, limiting to %d", min, TopoGraph.MAXCHANNELS);
            min = TopoGraph.MAXCHANNELS;
        }
        if (min < 0) {
            min = 0;
        }
        int max = maxParam == UNSET ? TopoGraph.MAXCHANNELS : maxParam;
        if (max > TopoGraph.MAXCHANNELS) {
            max = TopoGraph.MAXCHANNELS;
        }
        if (max < 1) {
            Log.warn("User asked for a maximum of %d channels, setting it to 1", max);
            max = 1;
        }
        return new ChannelLimits(min, max);
    }

    /**
     * @param other another rank's bounds
     * @return the lower floor and the lower cap of the two (the floor never above the cap)
     */
    public ChannelLimits lowest(ChannelLimits other) {
        int lowMax = Math.min(max, other.max);
        return new ChannelLimits(Math.min(Math.min(min, other.min), lowMax), lowMax);
    }
}
