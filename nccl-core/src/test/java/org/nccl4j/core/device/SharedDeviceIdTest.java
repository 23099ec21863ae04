package org.nccl4j.core.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.nccl4j.core.topo.xml.CNum;

class SharedDeviceIdTest {
    private static final long H200 = CNum.busIdToInt64("0000:00:06.0");
    private static final long OTHER = CNum.busIdToInt64("0000:3b:00.0");

    @Test
    void anyProcessFindsTheGpuFromTheIdAlone() {
        long id = SharedDeviceId.of(H200, 4_194_303, 7);
        assertTrue(SharedDeviceId.isShared(id));
        assertTrue(SharedDeviceId.onGpu(id, H200));
        assertFalse(SharedDeviceId.onGpu(id, OTHER));
        // bit 62 | the bus id's low 28 bits (0x60) << 34 | pid << 12 | count
        assertEquals(0x4000_0183_ffff_f007L, id, Long.toHexString(id));
    }

    @Test
    void ranksOfOneGpuDifferByProcessAndCount() {
        long a = SharedDeviceId.of(H200, 1234, 0);
        assertNotEquals(a, SharedDeviceId.of(H200, 1234, 1));
        assertNotEquals(a, SharedDeviceId.of(H200, 1235, 0));
        assertNotEquals(a, SharedDeviceId.of(OTHER, 1234, 0));
    }

    @Test
    void aGpusOwnBusIdIsNotShared() {
        assertFalse(SharedDeviceId.isShared(H200));
        assertFalse(SharedDeviceId.isShared(CNum.busIdToInt64("ffff:ff:1f.7")));
    }
}
