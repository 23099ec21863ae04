package org.nccl4j.gpu.cuda.fatbin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/** The reader on bad input and on PTX text. */
class FatbinTest {
    @Test
    void somethingElseIsNotAFatbin() {
        byte[] elf = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        NcclException e = assertThrows(NcclException.class, () -> Fatbin.parse(elf));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        assertEquals("not a fatbin: magic 0x464c457f at offset 0, expected 0xba55ed50", e.detail());
        NcclException empty = assertThrows(NcclException.class, () -> Fatbin.parse(new byte[0]));
        assertTrue(empty.detail().startsWith("fatbin truncated: the container header at 0"), empty.detail());
    }

    @Test
    void aTruncatedFatbinSaysWhereItEnds() {
        assumeTrue(FatbinResource.present(), "built with -Dnccl4j.cuda.skip=true: no fatbin to cut");
        byte[] whole = FatbinResource.bytes();
        NcclException e = assertThrows(NcclException.class, () -> Fatbin.parse(Arrays.copyOf(whole, whole.length - 1)));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        assertTrue(e.detail().startsWith("fatbin truncated: the container at 0"), e.detail());
    }

    @Test
    void ptxEntriesAreItsEntryDirectives() {
        String ptx = """
                .version 9.0
                .target sm_100
                .visible .entry nccl4j_AllReduce_Ring_Simple(
                    .param .align 8 .b8 nccl4j_AllReduce_Ring_Simple_param_0[24]
                )
                .func helper(.param .b32 x)
                .entry plain(
                .weak .entry weakOne(
                // .entry commentedOut(
                """;
        assertEquals(List.of("nccl4j_AllReduce_Ring_Simple", "plain", "weakOne"), PtxKernels.entryPoints(ptx));
    }
}
