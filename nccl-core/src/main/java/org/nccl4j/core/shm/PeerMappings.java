package org.nccl4j.core.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;

/**
 * One receive connection's view of its sender's {@link SharedMemory}: the allocations its steps
 * were posted in, mapped read-only from {@code /proc/<pid>/fd/<fd>} after checking that the
 * descriptor is that allocation's memfd. The two mapped last stay mapped (an AllReduce posts from
 * its input and its output); an older one is unmapped when a third comes, so memory the peer
 * freed is not held here for long. Used by the connection's kernel thread only.
 */
public final class PeerMappings implements InPlaceSource {
    /** One allocation mapped here, by its arena (closing it unmaps). */
    private record Mapped(long id, Arena arena, MemorySegment mem) {
    }

    private final long pid;
    private final String peer;
    /** The allocation mapped last and the one before it, or {@code null}. */
    private Mapped last;
    private Mapped before;

    /**
     * @param pid  the sender's process
     * @param peer the sender, for messages
     */
    public PeerMappings(long pid, String peer) {
        this.pid = pid;
        this.peer = peer;
    }

    /**
     * @param pid a process of this host
     * @return whether this process may open that one's descriptors (same user, {@code /proc}
     *     shared): what a receiver checks before it lets its sender post memory in place
     */
    public static boolean canOpen(long pid) {
        try (Stream<Path> fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            return fds.findAny().isPresent();
        } catch (IOException | SecurityException e) {
            return false;
        }
    }

    /**
     * @param id the sender's allocation (not 0)
     * @param fd its descriptor in the sender
     * @return the whole allocation, read-only
     * @throws NcclException SYSTEM_ERROR if it cannot be opened or is not that allocation
     */
    @Override
    public MemorySegment map(long id, int fd) {
        if (last != null && last.id() == id) {
            return last.mem();
        }
        if (before != null && before.id() == id) {
            return before.mem();
        }
        Arena arena = Arena.ofShared();
        MemorySegment m;
        try {
            m = open(id, fd, arena);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
        if (before != null) {
            before.arena().close();
        }
        before = last;
        last = new Mapped(id, arena, m);
        return m;
    }

    private MemorySegment open(long id, int fd, Arena arena) {
        Path path = Path.of("/proc/" + pid + "/fd/" + fd);
        try {
            // The number alone could name another file by now: the memfd's name says which it is.
            String target = Files.readSymbolicLink(path).toString();
            if (!target.equals("/memfd:" + SharedMemory.name(id) + " (deleted)")) {
                throw NcclException.of(Result.INTERNAL_ERROR, peer + "'s memory " + Long.toHexString(id) + " is not at "
                        + path + " (it links to " + target + ")", "the peer freed memory a collective was still using");
            }
            try (FileChannel fc = FileChannel.open(path, StandardOpenOption.READ)) {
                long size = fc.size();
                MemorySegment mapped = fc.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
                Log.info(Subsys.SHM | Subsys.ALLOC, "mapped %s's memory %x (%d bytes) to read it in place", peer, id,
                        size);
                return ShmSegment.plain(mapped, arena).asReadOnly();
            }
        } catch (IOException e) {
            throw NcclException.of(Result.SYSTEM_ERROR, "cannot map " + peer + "'s memory " + Long.toHexString(id) + " ("
                    + path + "): " + e, "ranks of one host must run as the same user and see each other's /proc", e);
        }
    }

    /** Unmaps what is mapped. */
    @Override
    public void close() {
        for (Mapped m : new Mapped[] {last, before}) {
            if (m != null) {
                m.arena().close();
            }
        }
        last = null;
        before = null;
    }
}
