package org.nccl4j.core.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * Files under {@code /dev/shm} that two processes map ({@code shmOpen}/{@code shmUnlink} in
 * NCCL). The creator really allocates the pages by writing zeros, so a full {@code /dev/shm}
 * fails here with a clear message rather than as a {@code SIGBUS} in the middle of a collective.
 *
 * <p>Names are removed as soon as the peer has mapped the file (as NCCL unlinks after
 * {@code mmap}); until then they are tracked, and a shutdown hook removes whatever a failed or
 * abandoned setup left, so only a killed JVM can leak one.
 */
public final class ShmSegment {
    private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();
    private static final int ZEROS = 1 << 20;
    private static final ByteBuffer ZERO_BUFFER = ByteBuffer.allocateDirect(ZEROS).asReadOnlyBuffer();

    static {
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> LIVE.forEach(ShmSegment::delete)));
    }

    private ShmSegment() {
    }

    /**
     * Creates, allocates and maps a new segment readable and writable by this user only.
     *
     * @param path  where, normally {@code /dev/shm/nccl4j-shm-...}
     * @param size  bytes
     * @param arena owns the mapping
     * @return the mapping, zero-filled
     * @throws NcclException with {@link Result#SYSTEM_ERROR} if the file system is too small or
     *                       not writable; nothing is left behind then
     */
    public static MemorySegment create(Path path, long size, Arena arena) {
        long free = usableSpace(path.getParent());
        if (free >= 0 && free < size) {
            throw tooSmall(path, size, free, null);
        }
        LIVE.add(path);
        try (FileChannel fc = open(path)) {
            fill(fc, size);
            return plain(fc.map(FileChannel.MapMode.READ_WRITE, 0, size, arena), arena);
        } catch (IOException | RuntimeException e) {
            delete(path);
            throw tooSmall(path, size, usableSpace(path.getParent()), e);
        }
    }

    private static FileChannel open(Path path) throws IOException {
        try {
            return FileChannel.open(path, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (FileAlreadyExistsException e) {
            // Left by a killed process whose pid (hence pidHash) was reused: nobody else can be
            // using a name that carries our pidHash and communicator id.
            Files.deleteIfExists(path);
            return open(path);
        }
    }

    /** Writes zeros over the whole file: tmpfs allocates its pages now, or says it cannot. */
    private static void fill(FileChannel fc, long size) throws IOException {
        // One zero page run for the process, never written: a direct buffer per segment stayed
        // allocated until a GC (78 MiB in a rank with 78 segments, found by the fault matrix).
        ByteBuffer zeros = ZERO_BUFFER.duplicate();
        long pos = 0;
        while (pos < size) {
            zeros.clear().limit((int) Math.min(zeros.capacity(), size - pos));
            while (zeros.hasRemaining()) {
                pos += fc.write(zeros, pos);
            }
        }
    }

    /**
     * Maps a segment the peer created.
     *
     * @param path     the peer's file
     * @param size     the size both sides agreed on
     * @param arena    owns the mapping
     * @param peerName the creator, for messages
     * @return the mapping
     * @throws NcclException if the file is missing or has another size
     */
    public static MemorySegment attach(Path path, long size, Arena arena, String peerName) {
        try (FileChannel fc = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long actual = fc.size();
            if (actual != size) {
                throw NcclException.of(Result.INVALID_USAGE, "SHM segment " + path + " of " + peerName + " is " + actual
                        + " bytes, expected " + size, "every rank must use the same NCCL_BUFFSIZE, NCCL_LL_BUFFSIZE and"
                        + " NCCL_LL128_BUFFSIZE");
            }
            return plain(fc.map(FileChannel.MapMode.READ_WRITE, 0, size, arena), arena);
        } catch (NoSuchFileException e) {
            throw NcclException.of(Result.SYSTEM_ERROR, "SHM segment " + path + " of " + peerName + " not found",
                    "ranks that share a host hash must see the same " + path.getParent() + " (containers: --ipc=host or"
                            + " a shared /dev/shm volume), or set NCCL_SHM_DISABLE=1", e);
        } catch (IOException e) {
            throw NcclException.of(Result.SYSTEM_ERROR, "cannot map SHM segment " + path + " of " + peerName + ": " + e,
                    "check the permissions of " + path.getParent() + " (both ranks must run as the same user), or set"
                            + " NCCL_SHM_DISABLE=1", e);
        }
    }

    /**
     * The mapping as a plain native segment of the same arena: the kernels' loops then see one
     * segment class for SHM and local memory. A third class beside native and heap segments makes
     * their accesses megamorphic: a float SUM of 2300 elements measured 17 µs instead of 0.6 µs.
     */
    static MemorySegment plain(MemorySegment mapped, Arena arena) {
        return MemorySegment.ofAddress(mapped.address()).reinterpret(mapped.byteSize(), arena, null);
    }

    /** @param path a segment's name to remove (idempotent; failures are ignored: the name may be gone) */
    public static void delete(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // Nothing more can be done; the mapping itself stays valid.
        }
        LIVE.remove(path);
    }

    private static long usableSpace(Path dir) {
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
    }

    private static NcclException tooSmall(Path path, long size, long free, Exception cause) {
        Path dir = path.getParent();
        String why = cause == null ? "" : " (" + cause + ")";
        return NcclException.of(Result.SYSTEM_ERROR, "SHM: cannot allocate " + bytes(size) + " for " + path + ": " + dir
                + " has " + (free < 0 ? "unknown" : bytes(free)) + " free" + why,
                "each SHM connection needs 4096 bytes plus its LL, LL128 and Simple buffers (NCCL_LL_BUFFSIZE"
                        + " + NCCL_LL128_BUFFSIZE + NCCL_BUFFSIZE, about 9.2 MiB by default) in " + dir
                        + "; make it writable and larger"
                        + " (docker run --shm-size=1g, or mount -o remount,size=1g " + dir + ") or set NCCL_SHM_DISABLE=1 to use the"
                        + " network instead", cause);
    }

    private static String bytes(long n) {
        return n < 1024 ? n + " bytes" : String.format("%d bytes (%.1f %s)", n, n >= 1 << 20 ? n / 1048576.0 : n / 1024.0,
                n >= 1 << 20 ? "MiB" : "KiB");
    }
}
