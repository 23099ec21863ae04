package org.nccl4j.gpu.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.nccl4j.core.device.GpuDescription;

/** What NVML's answers become in the topology, which needs no GPU. */
class NvmlTest {
    @Test
    void nvmlBusIdsBecomeSysfsNames() {
        assertEquals("0000:3b:00.0", Nvml.normalBusId("00000000:3B:00.0"));
        assertEquals("0000:07:00.0", Nvml.normalBusId("0000:07:00.0"));
        assertEquals("0001:c1:00.0", Nvml.normalBusId("00000001:C1:00.0"));
        // NVML's "not visible in this VM" stays as NCCL compares it.
        assertEquals("fffffff:ffff:ff", Nvml.normalBusId("FFFFFFF:FFFF:FF"));
    }

    @Test
    void linksAskedForFollowNcclPerArchitecture() {
        assertEquals(0, Nvml.maxLinks(52));
        assertEquals(4, Nvml.maxLinks(60));
        assertEquals(6, Nvml.maxLinks(70));
        assertEquals(12, Nvml.maxLinks(80));
        assertEquals(12, Nvml.maxLinks(86));
        assertEquals(18, Nvml.maxLinks(90));
    }

    @Test
    void remoteTypesBecomeNcclsPciClasses() {
        assertEquals(GpuDescription.CLASS_GPU, Nvml.remoteClass(0));
        assertEquals("0x068001", Nvml.remoteClass(1));
        assertEquals("0x068000", Nvml.remoteClass(2));
        assertNull(Nvml.remoteClass(255));
    }
}
