package org.nccl4j.core.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/** LL and LL128 line encoding, step flags, proxy tags and the protocol buffer layout. */
class ProtocolLinesTest {
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @Test
    void anLlLineCarriesEightDataBytesBesideTwoFlags() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment lines = arena.allocate(4 * LlLine.BYTES, 16);
            long data = 0x1122_3344_5566_7788L;
            LlLine.write(lines, 1, data, LlLine.flag(41));
            // ncclLLFifoLine: data1, flag1, data2, flag2 (data1 = the first 4 data bytes).
            assertEquals(0x5566_7788, lines.get(LE_INT, 16));
            assertEquals(42, lines.get(LE_INT, 20));
            assertEquals(0x1122_3344, lines.get(LE_INT, 24));
            assertEquals(42, lines.get(LE_INT, 28));
            MemorySegment out = arena.allocate(8);
            assertTrue(LlLine.read(lines, 1, 42, out, 0));
            assertEquals(data, out.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0));
            assertFalse(LlLine.ready(lines, 1, 50), "a line from step 41 is stale for step 49");
            assertFalse(LlLine.ready(lines, 0, LlLine.flag(0)), "zeroed memory never carries a flag");
        }
    }

    @Test
    void anLlLineWithOneHalfWrittenIsNotReady() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment lines = arena.allocate(LlLine.BYTES, 16);
            LlLine.write(lines, 0, 7, LlLine.flag(2));
            lines.set(LE_INT, 12, LlLine.flag(3)); // only the second half of step 3 arrived
            lines.set(LE_INT, 8, 9);
            assertFalse(LlLine.ready(lines, 0, LlLine.flag(3)));
            assertFalse(LlLine.read(lines, 0, LlLine.flag(3), arena.allocate(8), 0));
        }
    }

    @Test
    void llLinesAndWireBytes() {
        assertEquals(0, LlLine.lines(0));
        assertEquals(1, LlLine.lines(1));
        assertEquals(1, LlLine.lines(8));
        assertEquals(2, LlLine.lines(9));
        assertEquals(32, Protocol.LL.wireBytes(9));
        assertEquals(256, Protocol.LL128.wireBytes(121));
        assertEquals(121, Protocol.SIMPLE.wireBytes(121));
        // calcBytePerStep: half of an LL step is data, 15/16 of an LL128 step.
        assertEquals(32768, Protocol.LL.dataBytesPerStep(65536));
        assertEquals(576000, Protocol.LL128.dataBytesPerStep(614400));
    }

    @Test
    void anLl128LineIsValidOnceItsFlagWordIs() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment lines = arena.allocate(2 * Ll128Line.BYTES, 128);
            MemorySegment src = arena.allocate(240);
            for (int i = 0; i < 240; i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 3 + 1));
            }
            assertFalse(Ll128Line.ready(lines, 1, Ll128Line.flag(6)));
            Ll128Line.write(lines, 1, src, 120, 100, Ll128Line.flag(6));
            assertEquals(7L, lines.get(ValueLayout.JAVA_LONG, 128 + 120), "the flag word closes the line");
            MemorySegment out = arena.allocate(120);
            assertTrue(Ll128Line.read(lines, 1, 7, out, 0, 100));
            assertEquals(-1, out.asSlice(0, 100).mismatch(src.asSlice(120, 100)));
            assertFalse(Ll128Line.read(lines, 1, 15, out, 0, 100), "stale for step 14");
            assertEquals(3, Ll128Line.lines(241));
        }
    }

    @Test
    void tagsNameTheirStepAndProtocol() {
        long t = ConnMem.tag(17, Protocol.LL128);
        assertEquals(Protocol.LL128, ConnMem.tagged(t, 17));
        assertNull(ConnMem.tagged(t, 25), "a tag left in the slot from 8 steps before");
        assertNull(ConnMem.tagged(0, 0), "zeroed memory tags nothing");
        for (Protocol p : Protocol.values()) {
            assertEquals(p, ConnMem.tagged(ConnMem.tag(0, p), 0));
        }
    }

    @Test
    void buffersFollowTheHeaderInProtocolOrder() {
        BuffSizes d = new BuffSizes(BuffSizes.DEFAULT_LL, BuffSizes.DEFAULT_LL128, 4_194_304);
        assertEquals(0, d.offset(Protocol.LL));
        assertEquals(524_288, d.offset(Protocol.LL128));
        assertEquals(524_288 + 4_915_200, d.offset(Protocol.SIMPLE));
        assertEquals(524_288 + 4_915_200 + 4_194_304, d.total());
        assertEquals(65536, d.stepSize(Protocol.LL));
        BuffSizes odd = new BuffSizes(1024 + 128, 8192, 520);
        assertEquals(4096, odd.offset(Protocol.LL128), "each buffer starts on a page");
        assertEquals(4096 + 8192, odd.offset(Protocol.SIMPLE));
    }

    @Test
    void defaultsAndBadSizes() {
        BuffSizes d = BuffSizes.of(StepKit.config(Map.of()));
        assertEquals(new BuffSizes(524_288, 4_915_200, 4_194_304), d);
        NcclException e = assertThrows(NcclException.class, () -> BuffSizes.of(StepKit.config(Map.of("NCCL_LL_BUFFSIZE", "1000"))));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        assertTrue(e.getMessage().contains("NCCL_LL_BUFFSIZE=1000"), e.getMessage());
        assertThrows(NcclException.class, () -> BuffSizes.of(StepKit.config(Map.of("NCCL_LL128_BUFFSIZE", "1000"))));
        assertEquals(2048, BuffSizes.of(StepKit.config(Map.of("NCCL_LL128_BUFFSIZE", "2048"))).ll128());
    }
}
