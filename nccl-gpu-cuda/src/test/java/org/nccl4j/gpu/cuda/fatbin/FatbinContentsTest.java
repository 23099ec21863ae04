package org.nccl4j.gpu.cuda.fatbin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.device.kernel.KernelEntries;

/**
 * The kernels the build put in the jar: SASS for every architecture the build targets, PTX of
 * the newest, and every kernel the backend launches in each of them. Needs no GPU.
 */
class FatbinContentsTest {
    /** What build-fatbin.sh compiles SASS for (sm_70 is gone from CUDA 13, so Turing is the oldest). */
    private static final int[] SASS = {75, 80, 90, 100};
    private static final int PTX = 100;

    private Fatbin fatbin;

    /** Per test, so that each is reported skipped with the reason. */
    @BeforeEach
    void read() {
        assumeFalse(Boolean.getBoolean("nccl4j.cuda.skip"), "built with -Dnccl4j.cuda.skip=true: the jar has no kernels");
        assertTrue(FatbinResource.present(), FatbinResource.NAME + " is missing from the build");
        fatbin = FatbinResource.read();
    }

    @Test
    void sassForEveryArchitectureAndPtxOfTheNewest() {
        for (int arch : SASS) {
            assertTrue(fatbin.elf(arch).isPresent(), "no ELF for sm_" + arch + " in " + fatbin.entries());
        }
        assertEquals(List.of(PTX), fatbin.ptx().stream().map(Fatbin.Entry::arch).toList(), fatbin.entries().toString());
        assertEquals(SASS.length + 1, fatbin.entries().size(), fatbin.entries().toString());
    }

    @Test
    void noEntryIsCompressed() {
        fatbin.entries().forEach(e -> assertFalse(e.compressed(), e + ": build-fatbin.sh passes --no-compress"));
    }

    @Test
    void everyEntryHoldsEveryKernelTheBackendLaunches() {
        for (Fatbin.Entry e : fatbin.entries()) {
            List<String> missing = new ArrayList<>(KernelEntries.ALL);
            missing.removeAll(e.kernels());
            assertTrue(missing.isEmpty(), e + " lacks " + missing);
        }
    }
}
