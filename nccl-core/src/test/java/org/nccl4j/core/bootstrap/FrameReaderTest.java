package org.nccl4j.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A frame's bytes arrive in pieces: the reader returns the frame whole and byte-identical, and a
 * length field that promises more than arrives costs only what arrived.
 */
class FrameReaderTest {
    /** A channel that hands over at most {@code piece} bytes a read, then "would block" once. */
    private static final class Trickle implements ReadableByteChannel {
        private final ByteBuffer data;
        private final int piece;
        private boolean blockNext;

        Trickle(byte[] bytes, int piece) {
            this.data = ByteBuffer.wrap(bytes);
            this.piece = piece;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (blockNext || !data.hasRemaining()) {
                blockNext = false;
                return 0;
            }
            int n = Math.min(piece, Math.min(dst.remaining(), data.remaining()));
            dst.put(dst.position(), data, data.position(), n).position(dst.position() + n);
            data.position(data.position() + n);
            blockNext = true;
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    private static byte[] frame(byte[] payload, int claimed) {
        return ByteBuffer.allocate(4 + payload.length).putInt(claimed).put(payload).array();
    }

    @Test
    void aFrameArrivingInPiecesPastTheFirstChunkIsReturnedWhole() throws Exception {
        byte[] payload = new byte[5 * FrameReader.FIRST_CHUNK + 12345];
        new Random(7).nextBytes(payload);
        Trickle ch = new Trickle(frame(payload, payload.length), 7777);
        FrameReader r = FrameReader.upTo(Wire.MAX_FRAME);
        int calls = 0;
        while (!r.readFrom(ch)) {
            calls++;
            assertTrue(calls < 10_000, "the frame never completed: bytes were lost");
        }
        assertArrayEquals(payload, r.payload());
        assertTrue(calls > 40, "read in " + calls + " pieces");
    }

    @Test
    void aLengthFieldAloneAllocatesNoMoreThanTheFirstChunk() throws Exception {
        FrameReader r = FrameReader.upTo(Wire.MAX_FRAME);
        Trickle ch = new Trickle(frame(new byte[100], Wire.MAX_FRAME), 1 << 20);
        for (int i = 0; i < 10; i++) {
            assertFalse(r.readFrom(ch));
        }
        assertEquals(FrameReader.FIRST_CHUNK, r.bodyCapacity(), "a 1 GiB length field with 100 bytes behind it");
    }
}
