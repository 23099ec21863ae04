package org.nccl4j.net.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IbSpeedTest {
    @ParameterizedTest(name = "active_speed {0} -> {1} Mbps per lane")
    @CsvSource({
        "1, 2500",    // SDR
        "2, 5000",    // DDR
        "4, 10000",   // QDR
        "8, 10000",   // FDR10
        "16, 14000",  // FDR
        "32, 25000",  // EDR
        "64, 50000",  // HDR
        "128, 50000", // NDR: beyond NCCL 2.10's table, the search stops at its last entry
        "0, 50000",   // no bit set: same
        "6, 5000",    // the lowest set bit wins
    })
    void laneSpeed(int activeSpeed, int mbps) {
        assertEquals(mbps, IbSpeed.laneMbps(activeSpeed));
    }

    @ParameterizedTest(name = "active_width {0} -> {1} lanes")
    @CsvSource({
        "1, 1",   // 1x
        "2, 4",   // 4x
        "4, 8",   // 8x
        "8, 12",  // 12x
        "16, 12", // 2x: not in NCCL 2.10's table (added later), so the last entry
        "0, 12",
        "3, 1",
    })
    void width(int activeWidth, int lanes) {
        assertEquals(lanes, IbSpeed.lanes(activeWidth));
    }

    @ParameterizedTest(name = "speed {0} width {1} -> {2} Mbps")
    @CsvSource({
        "4, 2, 40000",    // QDR 4x
        "16, 2, 56000",   // FDR 4x
        "32, 2, 100000",  // EDR 4x
        "64, 2, 200000",  // HDR 4x
        "32, 1, 25000",   // EDR 1x (RoCE 25G)
        "64, 8, 600000",  // HDR 12x
    })
    void portSpeed(int activeSpeed, int activeWidth, int mbps) {
        assertEquals(mbps, IbSpeed.mbps(activeSpeed, activeWidth));
    }

    @ParameterizedTest
    @CsvSource({"0, 3, 3", "1, 3, 0", "4, 6, 2", "128, 6, 6"})
    void firstBitSetStopsAtMax(int value, int max, int index) {
        assertEquals(index, IbSpeed.firstBitSet(value, max));
    }
}
