package org.nccl4j.core.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** LL and LL128 line encoding, step flags and wire bytes. */
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
}
