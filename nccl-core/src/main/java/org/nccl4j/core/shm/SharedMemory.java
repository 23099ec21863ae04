package org.nccl4j.core.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;

/**
 * Host memory the other processes of this host can map ({@code ncclMemAlloc} for the host
 * backend): each allocation is a Linux memfd named {@code nccl4j-<id>}, mapped here and kept
 * open until its arena closes, so a peer rank maps it as {@code /proc/<pid>/fd/<fd>}
 * ({@link PeerMappings}). The collectives look buffers up here ({@link #find}): a step whose
 * data lies in such memory is read by the peer where it is, with no copy through the
 * connection's buffer. Where there are no memfds the memory is ordinary native memory.
 */
public final class SharedMemory {
    /**
     * One allocation.
     *
     * @param address its first byte in this process
     * @param size    its length
     * @param id      its number in this process (its memfd's name carries it)
     * @param fd      its memfd's descriptor
     */
    public record Allocation(long address, long size, long id, int fd) {
    }

    /**
     * Allocation ids, from a random start: a receiver that opened another process's memfd by
     * mistake (a pid of another namespace) could not find one of this name there. Never 0, which marks
     * an empty entry of {@link PeerMappings}.
     */
    private static final AtomicLong IDS = new AtomicLong(ThreadLocalRandom.current().nextLong() >>> 1);
    private static final Object LOCK = new Object();
    /** The live allocations by address, replaced whole on each change: lookups take no lock. */
    private static volatile Allocation[] live = new Allocation[0];

    private SharedMemory() {
    }

    /**
     * @param arena owns the memory: closing it unmaps it and closes its memfd
     * @param bytes size, at least 1
     * @return zeroed memory, page-aligned, that peers on this host can map
     * @throws NcclException INVALID_ARGUMENT for a size below 1; SYSTEM_ERROR if the kernel
     *     cannot provide the memory
     */
    public static MemorySegment allocate(Arena arena, long bytes) {
        if (bytes < 1) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "memAlloc of " + bytes + " bytes", "ask for 1 byte or more");
        }
        if (!MemFd.AVAILABLE) {
            Log.info(Subsys.ALLOC, "memAlloc: no memfds here; %d bytes of ordinary native memory (peers copy through buffers)",
                    bytes);
            return arena.allocate(bytes, 4096);
        }
        long id = IDS.incrementAndGet();
        if (id == 0) {
            id = IDS.incrementAndGet();
        }
        int fd = MemFd.create(name(id), bytes);
        Arena mapping = Arena.ofShared();
        try (FileChannel fc = FileChannel.open(Path.of("/proc/self/fd/" + fd), StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            MemorySegment mapped = fc.map(FileChannel.MapMode.READ_WRITE, 0, bytes, mapping);
            Allocation a = new Allocation(mapped.address(), bytes, id, fd);
            add(a);
            // A plain native segment (as ShmSegment's), owned by the caller's arena.
            return MemorySegment.ofAddress(a.address()).reinterpret(bytes, arena, s -> release(a, mapping));
        } catch (IOException | RuntimeException e) {
            mapping.close();
            MemFd.close(fd);
            throw NcclException.of(Result.SYSTEM_ERROR, "memAlloc: cannot map a memfd of " + bytes + " bytes: " + e,
                    "check the memory limits (ulimit -v, the cgroup's memory.max)", e);
        }
    }

    /** @return the memfd name of allocation {@code id} */
    public static String name(long id) {
        return "nccl4j-" + Long.toHexString(id);
    }

    /**
     * @param s   memory
     * @param off a byte in it
     * @param n   bytes from there
     * @return the live allocation holding all of them, or {@code null}
     */
    public static Allocation find(MemorySegment s, long off, long n) {
        Allocation[] all = live;
        if (all.length == 0 || !s.isNative()) {
            return null;
        }
        long at = s.address() + off;
        int lo = 0;
        int hi = all.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            Allocation a = all[mid];
            if (at < a.address()) {
                hi = mid - 1;
            } else if (at >= a.address() + a.size()) {
                lo = mid + 1;
            } else {
                return at + n <= a.address() + a.size() ? a : null;
            }
        }
        return null;
    }

    /** @return how many allocations are live in this process */
    public static int liveCount() {
        return live.length;
    }

    private static void add(Allocation a) {
        synchronized (LOCK) {
            Allocation[] next = Arrays.copyOf(live, live.length + 1);
            next[next.length - 1] = a;
            Arrays.sort(next, Comparator.comparingLong(Allocation::address));
            live = next;
        }
    }

    private static void release(Allocation a, Arena mapping) {
        synchronized (LOCK) {
            live = Arrays.stream(live).filter(x -> x != a).toArray(Allocation[]::new);
        }
        mapping.close();
        MemFd.close(a.fd());
    }
}
