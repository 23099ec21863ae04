package org.nccl4j.core.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/** {@code Nccl.memAlloc} on Linux: memfds, looked up by address, gone with their arena; read from /proc, not from the class. */
class SharedMemoryTest {
    private static String link(int fd) throws IOException {
        return Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
    }

    private static long mapsNaming(String name) throws IOException {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains("/memfd:" + name + " "))
                .count();
    }

    @Test
    void anAllocationIsAZeroedMemfdThatItsArenaFrees() throws IOException {
        int before = SharedMemory.liveCount();
        SharedMemory.Allocation a;
        String name;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = Nccl.memAlloc(arena, 10_000);
            assertEquals(10_000, m.byteSize());
            assertEquals(0, m.address() % 4096, "page-aligned");
            for (long i = 0; i < m.byteSize(); i++) {
                assertEquals(0, m.get(ValueLayout.JAVA_BYTE, i));
            }
            a = SharedMemory.find(m, 0, m.byteSize());
            assertNotNull(a);
            name = SharedMemory.name(a.id());
            assertEquals("/memfd:" + name + " (deleted)", link(a.fd()));
            assertEquals(1, mapsNaming(name), "mapped once here");
            assertEquals(before + 1, SharedMemory.liveCount());
            // Written here, seen through the memfd by anyone who opens it (as a peer does).
            m.set(ValueLayout.JAVA_LONG, 4096, 0x1122334455667788L);
            byte[] file = Files.readAllBytes(Path.of("/proc/self/fd/" + a.fd()));
            assertEquals(10_000, file.length);
            assertEquals((byte) 0x88, file[4096]);
        }
        assertEquals(before, SharedMemory.liveCount());
        assertEquals(0, mapsNaming(name), "unmapped with its arena");
        try {
            assertFalse(link(a.fd()).contains(name), "its descriptor was closed");
        } catch (NoSuchFileException closed) {
            // closed and not reused
        }
    }

    @Test
    void findNamesTheAllocationHoldingAWholeRangeAndNothingElse() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment x = Nccl.memAlloc(arena, 8192);
            MemorySegment y = Nccl.memAlloc(arena, 100);
            SharedMemory.Allocation ax = SharedMemory.find(x, 0, 1);
            SharedMemory.Allocation ay = SharedMemory.find(y, 0, 1);
            assertNotNull(ax);
            assertNotNull(ay);
            assertTrue(ax.id() != ay.id() && ax.id() != 0 && ay.id() != 0);
            assertEquals(ax, SharedMemory.find(x.asSlice(4000), 10, 4182));
            assertNull(SharedMemory.find(x, 8000, 193), "runs past its end");
            assertEquals(ay, SharedMemory.find(y, 99, 1));
            assertNull(SharedMemory.find(y, 100, 1));
            assertNull(SharedMemory.find(arena.allocate(64), 0, 64), "ordinary native memory");
            assertNull(SharedMemory.find(MemorySegment.ofArray(new byte[64]), 0, 64), "heap memory");
        }
    }

    @Test
    void aSizeBelowOneIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            NcclException e = assertThrows(NcclException.class, () -> Nccl.memAlloc(arena, 0));
            assertEquals(Result.INVALID_ARGUMENT, e.result());
            assertTrue(e.getMessage().contains("0 bytes"), e.getMessage());
        }
    }
}
