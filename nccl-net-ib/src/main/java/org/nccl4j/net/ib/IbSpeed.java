package org.nccl4j.net.ib;

/**
 * Port speed in Mbps from {@code ibv_port_attr.active_speed} and {@code active_width}, as NCCL
 * 2.10's {@code ncclIbSpeed(speed) * ncclIbWidth(width)}: the index of the lowest set bit picks
 * the lane speed and the lane count. The search stops at the table's last entry, so no bit set or
 * a bit beyond the table (NDR's 128, 2x width's 16) gives the last entry, as in NCCL.
 */
final class IbSpeed {
    /** Mbps per lane by bit of {@code active_speed}: SDR, DDR, QDR, FDR10, FDR, EDR, HDR. */
    private static final int[] LANE_MBPS = {2500, 5000, 10000, 10000, 14000, 25000, 50000};
    /** Lanes by bit of {@code active_width}: 1x, 4x, 8x, 12x. */
    private static final int[] LANES = {1, 4, 8, 12};

    private IbSpeed() {
    }

    /** NCCL's {@code firstBitSet(val, max)}. */
    static int firstBitSet(int value, int max) {
        int i = 0;
        while (i < max && (value & (1 << i)) == 0) {
            i++;
        }
        return i;
    }

    /** @return Mbps per lane for {@code active_speed} */
    static int laneMbps(int activeSpeed) {
        return LANE_MBPS[firstBitSet(activeSpeed, LANE_MBPS.length - 1)];
    }

    /** @return lanes for {@code active_width} */
    static int lanes(int activeWidth) {
        return LANES[firstBitSet(activeWidth, LANES.length - 1)];
    }

    /** @return the port speed in Mbps */
    static int mbps(int activeSpeed, int activeWidth) {
        return laneMbps(activeSpeed) * lanes(activeWidth);
    }
}
