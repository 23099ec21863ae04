package org.nccl4j.gpu.hip.codeobject;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/** Malformed bundles end in a clear error, never a read outside the bytes. */
class OffloadBundleTest {
    private static byte[] bundle(long count, long offset, long size, String id, int total) {
        ByteBuffer b = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        b.put(OffloadBundle.MAGIC.getBytes(StandardCharsets.US_ASCII)).putLong(count);
        b.putLong(offset).putLong(size).putLong(id.length()).put(id.getBytes(StandardCharsets.US_ASCII));
        return b.array();
    }

    private static String refused(byte[] image) {
        NcclException e = assertThrows(NcclException.class, () -> OffloadBundle.parse(image));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        return e.detail();
    }

    @Test
    void anEmptyHostEntryParses() {
        OffloadBundle b = OffloadBundle.parse(bundle(1, 0, 0, "host-x86_64-unknown-linux", 100));
        assertEquals(1, b.entries().size());
        assertEquals(java.util.List.of(), b.targets());
    }

    @Test
    void badMagicTruncationAndEntriesOutsideTheBytesAreRefused() {
        assertTrue(refused("not a bundle at all, not at all".getBytes()).contains("no __CLANG_OFFLOAD_BUNDLE__"));
        assertTrue(refused(bundle(-1, 0, 0, "", 64)).contains("-1 entries"));
        assertTrue(refused(bundle(2, 0, 0, "host-x86_64-unknown-linux", 81)).contains("entry 1's header"));
        String outside = refused(bundle(1, 90, 4096, OffloadBundle.HIP_PREFIX + "gfx90a", 120));
        assertTrue(outside.contains("entry hipv4-amdgcn-amd-amdhsa--gfx90a ends at 4186"), outside);
        String notElf = refused(bundle(1, 0, 64, OffloadBundle.HIP_PREFIX + "gfx90a", 120));
        assertTrue(notElf.contains("the code object hipv4-amdgcn-amd-amdhsa--gfx90a: not a 64-bit little-endian ELF"), notElf);
    }
}
