package org.nccl4j.core.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * A receiver's mappings of its sender's memory, with this process as the sender (its own
 * {@code /proc/<pid>/fd}): a second, read-only mapping of the same pages, two at a time.
 */
class PeerMappingsTest {
    private static final long PID = ProcessHandle.current().pid();

    private static long mapsNaming(long id) throws IOException {
        String name = "/memfd:" + SharedMemory.name(id) + " ";
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains(name)).count();
    }

    @Test
    void theSendersBytesAreReadThroughASecondReadOnlyMapping() throws IOException {
        try (Arena arena = Arena.ofConfined(); PeerMappings peer = new PeerMappings(PID, "rank 1")) {
            MemorySegment m = Nccl.memAlloc(arena, 3 * 4096);
            SharedMemory.Allocation a = SharedMemory.find(m, 0, 1);
            m.set(ValueLayout.JAVA_INT, 8192, 42);
            MemorySegment seen = peer.map(a.id(), a.fd());
            assertEquals(3 * 4096, seen.byteSize());
            assertTrue(seen.address() != m.address(), "a mapping of its own");
            assertEquals(2, mapsNaming(a.id()));
            assertEquals(42, seen.get(ValueLayout.JAVA_INT, 8192));
            m.set(ValueLayout.JAVA_INT, 8192, 43);
            assertEquals(43, seen.get(ValueLayout.JAVA_INT, 8192), "the same pages");
            assertThrows(IllegalArgumentException.class, () -> seen.set(ValueLayout.JAVA_INT, 0, 1));
            assertEquals(seen, peer.map(a.id(), a.fd()), "kept");
        }
    }

    @Test
    void aThirdAllocationUnmapsTheOneMappedFirst() throws IOException {
        try (Arena arena = Arena.ofConfined(); PeerMappings peer = new PeerMappings(PID, "rank 1")) {
            SharedMemory.Allocation[] a = new SharedMemory.Allocation[3];
            for (int i = 0; i < 3; i++) {
                a[i] = SharedMemory.find(Nccl.memAlloc(arena, 4096), 0, 1);
            }
            peer.map(a[0].id(), a[0].fd());
            peer.map(a[1].id(), a[1].fd());
            peer.map(a[0].id(), a[0].fd());
            assertEquals(2, mapsNaming(a[0].id()));
            assertEquals(2, mapsNaming(a[1].id()));
            peer.map(a[2].id(), a[2].fd());
            assertEquals(1, mapsNaming(a[0].id()), "the older of the two is unmapped");
            assertEquals(2, mapsNaming(a[1].id()));
            assertEquals(2, mapsNaming(a[2].id()));
            peer.close();
            for (SharedMemory.Allocation x : a) {
                assertEquals(1, mapsNaming(x.id()), "closed: only the owner's mapping is left");
            }
        }
    }

    @Test
    void aDescriptorThatIsNotTheAllocationIsRefused() {
        try (Arena arena = Arena.ofConfined(); PeerMappings peer = new PeerMappings(PID, "rank 1")) {
            SharedMemory.Allocation a = SharedMemory.find(Nccl.memAlloc(arena, 4096), 0, 1);
            SharedMemory.Allocation b = SharedMemory.find(Nccl.memAlloc(arena, 4096), 0, 1);
            NcclException e = assertThrows(NcclException.class, () -> peer.map(a.id(), b.fd()));
            assertEquals(Result.INTERNAL_ERROR, e.result());
            assertTrue(e.getMessage().contains("rank 1's memory " + Long.toHexString(a.id())), e.getMessage());
            NcclException gone = assertThrows(NcclException.class, () -> peer.map(a.id(), 1 << 20));
            assertEquals(Result.SYSTEM_ERROR, gone.result());
        }
    }

    @Test
    void onlyProcessesWhoseDescriptorsCanBeOpenedAreReadInPlace() throws Exception {
        assertTrue(PeerMappings.canOpen(PID));
        Process p = new ProcessBuilder("true").start();
        assertTrue(p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS));
        assertFalse(PeerMappings.canOpen(p.pid()), "an ended process");
    }
}
