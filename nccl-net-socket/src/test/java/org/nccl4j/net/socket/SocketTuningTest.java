package org.nccl4j.net.socket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nccl4j.net.spi.NetLogger;

class SocketTuningTest {
    private final List<String> warnings = new ArrayList<>();
    private final NetLogger log = (level, subsystem, message) -> warnings.add(message);

    @Test
    void autoDependsOnTheNicVendor() {
        assertEquals(new SocketTuning(2, 8), SocketTuning.resolve(-2, -2, "0x1d0f", 2, log));
        assertEquals(new SocketTuning(4, 1), SocketTuning.resolve(-2, -2, "0x1ae0", 2, log));
        assertEquals(new SocketTuning(0, 1), SocketTuning.resolve(-2, -2, "0x15b3", 2, log));
        assertEquals(new SocketTuning(0, 1), SocketTuning.resolve(-2, -2, null, 2, log));
        assertEquals(0, SocketTuning.resolve(-2, -2, null, 2, log).nSocks());
    }

    @Test
    void autoGivesAnOrdinaryNicDataSocketsFromSixteenCores() {
        assertEquals(new SocketTuning(0, 1), SocketTuning.resolve(-2, -2, null, 15, log));
        assertEquals(new SocketTuning(2, 2), SocketTuning.resolve(-2, -2, null, 16, log));
        assertEquals(new SocketTuning(2, 2), SocketTuning.resolve(-2, -2, "0x15b3", 64, log));
        // The vendors' own choices and explicit settings win over the cores.
        assertEquals(new SocketTuning(4, 1), SocketTuning.resolve(-2, -2, "0x1ae0", 64, log));
        assertEquals(new SocketTuning(0, 2), SocketTuning.resolve(0, -2, null, 64, log));
        assertEquals(new SocketTuning(1, 1), SocketTuning.resolve(1, 1, null, 64, log));
    }

    @Test
    void eachParameterFallsBackToAutoIndependently() {
        assertEquals(new SocketTuning(3, 8), SocketTuning.resolve(3, -2, "0x1d0f", 2, log));
        assertEquals(new SocketTuning(0, 5), SocketTuning.resolve(-2, 5, null, 2, log));
        assertEquals(new SocketTuning(2, 1), SocketTuning.resolve(2, -2, null, 2, log));
        assertEquals(new SocketTuning(2, 2), SocketTuning.resolve(2, 2, null, 2, log));
    }

    @Test
    void capsThreadsAndSockets() {
        assertEquals(new SocketTuning(16, 1), SocketTuning.resolve(40, 1, null, 2, log));
        assertTrue(warnings.getFirst().contains("NCCL_SOCKET_NTHREADS is greater than the maximum"), warnings.toString());
        warnings.clear();
        assertEquals(new SocketTuning(8, 8), SocketTuning.resolve(8, 9, null, 2, log));
        assertTrue(warnings.getFirst().contains("setting NCCL_NSOCKS_PERTHREAD to 8"), warnings.toString());
    }

    @Test
    void parsesParametersLikeStrtoll() {
        assertEquals(12, SocketTuning.parseParam("12", "X", -2, log));
        assertEquals(16, SocketTuning.parseParam("0x10", "X", -2, log));
        assertEquals(8, SocketTuning.parseParam("010", "X", -2, log));
        assertEquals(-2, SocketTuning.parseParam(null, "X", -2, log));
        assertEquals(-2, SocketTuning.parseParam("two", "X", -2, log));
        assertEquals(-1, SocketTuning.parseParam(" -1 ", "X", -2, log));
    }

    @Test
    void pieceSizeIsAtLeast64KiB() {
        assertEquals(64 * 1024, SocketComm.taskSize(1000, 4));
        assertEquals(256 * 1024, SocketComm.taskSize(1024 * 1024, 4));
        assertEquals(349526, SocketComm.taskSize(1024 * 1024, 3));
    }
}
