package org.nccl4j.core.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Bus ids as NCCL reads and prints them, and a shared GPU's ranks. */
class LocalDeviceTest {
    @Test
    void busIdIsItsHexDigitsAsNcclReadsThem() {
        assertEquals(0x3b000L, LocalDevice.busIdOf("0000:3b:00.0"));
        assertEquals(0x7000L, LocalDevice.busIdOf("0000:07:00.0"));
        assertEquals(0x1001a1L, LocalDevice.busIdOf("0001:00:1a.1"));
        assertEquals(0x1L, LocalDevice.busIdOf("0000:00:00.1 trailing"));
    }

    @Test
    void busIdTextIsNcclsInt64ToBusId() {
        assertEquals("0000:3b:00.0", LocalDevice.busIdText(0x3b000L));
        assertEquals("0001:00:1a.1", LocalDevice.busIdText(0x1001a1L));
        assertEquals(0x3b000L, LocalDevice.busIdOf(LocalDevice.busIdText(0x3b000L)));
    }

    @Test
    void aSharedGpusRanksKeepItsBusIdTextAndGetIdsOfTheirOwn() {
        LocalDevice a = LocalDevice.sharedGpu("hip", 0, "0000:c6:00.0");
        LocalDevice b = LocalDevice.sharedGpu("hip", 0, "0000:c6:00.0");
        assertEquals("0000:c6:00.0", a.busIdText());
        assertTrue(SharedDeviceId.isShared(a.busId()) && SharedDeviceId.onGpu(a.busId(), 0xc6000L));
        assertTrue(a.busId() != b.busId());
        assertEquals(LocalDevice.gpu("hip", 0, "0000:c6:00.0").busId(), 0xc6000L);
    }
}
