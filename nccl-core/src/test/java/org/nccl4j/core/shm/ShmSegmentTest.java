package org.nccl4j.core.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ShmSegmentTest {

    /**
     * The kernels see SHM, local and heap memory: the mapping must be of the same class as local
     * native memory, or their segment accesses turn megamorphic (measured 17 µs instead of 0.6 µs
     * for a float SUM of 2,300 elements), and must still die with its arena.
     */
    @Test
    void bothEndsShareTheMemoryAsPlainNativeSegmentsThatDieWithTheirArena() throws Exception {
        Path path = Path.of("/dev/shm", "nccl4j-test-shmsegment-" + ProcessHandle.current().pid());
        Arena creator = Arena.ofShared();
        Arena peer = Arena.ofShared();
        try {
            MemorySegment mine = ShmSegment.create(path, 1 << 16, creator);
            MemorySegment theirs = ShmSegment.attach(path, 1 << 16, peer, "the peer");
            assertSame(creator.allocate(8).getClass(), mine.getClass());
            assertSame(mine.getClass(), theirs.getClass());
            assertEquals(1 << 16, mine.byteSize());
            mine.set(ValueLayout.JAVA_LONG, 4096, 0x1234_5678_9abc_def0L);
            assertEquals(0x1234_5678_9abc_def0L, theirs.get(ValueLayout.JAVA_LONG, 4096));
            peer.close();
            assertFalse(theirs.scope().isAlive());
            assertThrows(IllegalStateException.class, () -> theirs.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(0x1234_5678_9abc_def0L, mine.get(ValueLayout.JAVA_LONG, 4096));
        } finally {
            if (peer.scope().isAlive()) {
                peer.close();
            }
            creator.close();
            ShmSegment.delete(path);
        }
        assertFalse(Files.exists(path));
    }
}
