package org.nccl4j.core.conn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.proto.Protocol;

/** A connection's memory: step tags, buffer placement, buffer sizes from their parameters. */
class ConnMemLayoutTest {
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
        BuffSizes d = BuffSizes.of(config(Map.of()));
        assertEquals(new BuffSizes(524_288, 4_915_200, 4_194_304), d);
        NcclException e = assertThrows(NcclException.class, () -> BuffSizes.of(config(Map.of("NCCL_LL_BUFFSIZE", "1000"))));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        assertTrue(e.getMessage().contains("NCCL_LL_BUFFSIZE=1000"), e.getMessage());
        assertThrows(NcclException.class, () -> BuffSizes.of(config(Map.of("NCCL_LL128_BUFFSIZE", "1000"))));
        assertEquals(2048, BuffSizes.of(config(Map.of("NCCL_LL128_BUFFSIZE", "2048"))).ll128());
    }

    @Test
    void headerFieldsFitWithoutOverlapAndTheInPlaceBitsShareTheTailsLine() {
        long[][] fields = {{ConnMem.COUNTER, 8}, {ConnMem.IN_PLACE_SLOTS, 8}, {ConnMem.SLEEPERS, 4},
            {ConnMem.SIZES, 4 * ConnMem.STEPS}, {ConnMem.SEND_TAGS, 8 * ConnMem.STEPS},
            {ConnMem.RECV_TAGS, 8 * ConnMem.STEPS}, {ConnMem.FAILED, 8}, {ConnMem.IN_PLACE_OK, 8},
            {ConnMem.IN_PLACE, 24 * ConnMem.STEPS}};
        for (int i = 0; i < fields.length; i++) {
            assertTrue(fields[i][0] + fields[i][1] <= ConnMem.HEADER, "field " + i + " fits");
            for (int j = i + 1; j < fields.length; j++) {
                boolean apart = fields[i][0] + fields[i][1] <= fields[j][0] || fields[j][0] + fields[j][1] <= fields[i][0];
                assertTrue(apart, "fields " + i + " and " + j + " overlap");
            }
        }
        assertEquals(ConnMem.COUNTER / 64, ConnMem.IN_PLACE_SLOTS / 64);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(ConnMem.HEADER, 64);
            ConnMem.markInPlace(h, 1 << 3 | 1 << 7);
            ConnMem.markInPlace(h, 1 << 7);
            for (int slot = 0; slot < ConnMem.STEPS; slot++) {
                assertEquals(slot == 7, ConnMem.inPlace(h, slot), "slot " + slot);
            }
            ConnMem.setInPlace(h, 7, 0x1234_5678_9abcL, 41, 65536);
            assertEquals(0x1234_5678_9abcL, ConnMem.inPlaceId(h, 7));
            assertEquals(41, ConnMem.inPlaceFd(h, 7));
            assertEquals(65536, ConnMem.inPlaceOffset(h, 7));
            assertEquals(0, ConnMem.counter(h), "the tail is untouched");
        }
    }

    private static Config config(Map<String, String> env) {
        return Config.of(new Properties(), env, Path.of("/nonexistent"));
    }
}
