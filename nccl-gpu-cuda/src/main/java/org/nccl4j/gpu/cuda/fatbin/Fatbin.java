package org.nccl4j.gpu.cuda.fatbin;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * Reads an nvcc {@code -fatbin} image: the container nvcc writes around the code it built for
 * each architecture. Layout (little-endian, as nvcc 13 writes it and checked against its output):
 *
 * <pre>
 * container header (16 bytes): u32 magic 0xBA55ED50, u16 version 1, u16 header size, u64 size of the entries
 * each entry: u16 kind (1 PTX, 2 ELF), u16 version, u32 header size, u64 payload size (padded),
 *             u32 compressed size @16, u32 arch @28 (75 = sm_75, compute_75 for PTX), u64 flags @40,
 *             u64 uncompressed size @56, more header (the source's name, options), then the payload
 * </pre>
 *
 * Several containers may follow each other. A compressed entry (flags 0x2000 or 0x8000, or a
 * compressed size) is listed but its kernels are not read: the build passes {@code --no-compress}.
 */
public final class Fatbin {
    /** The container's magic number. */
    public static final int MAGIC = 0xBA55ED50;
    private static final int CONTAINER_HEADER = 16;
    private static final int ENTRY_HEADER_MIN = 64;
    private static final long FLAG_COMPRESSED_LZ4 = 0x2000;
    private static final long FLAG_COMPRESSED_ZSTD = 0x8000;

    /** What an entry holds. */
    public enum Kind {
        /** PTX text for a virtual architecture ({@code compute_NN}), JIT-compiled by the driver. */
        PTX,
        /** A cubin (ELF with SASS) for a real architecture ({@code sm_NN}). */
        ELF
    }

    /**
     * One entry.
     *
     * @param kind       PTX or ELF
     * @param arch       the architecture, e.g. 90 (sm_90 for ELF, compute_90 for PTX)
     * @param compressed whether the payload is compressed (then {@code kernels} is empty)
     * @param size       the payload's size in bytes
     * @param kernels    the kernel entry points it holds, in the order found
     */
    public record Entry(Kind kind, int arch, boolean compressed, long size, List<String> kernels) {
        @Override
        public String toString() {
            return (kind == Kind.ELF ? "ELF sm_" : "PTX compute_") + arch + (compressed ? " (compressed)" : "")
                    + ", " + size + " bytes, kernels " + kernels;
        }
    }

    private final List<Entry> entries;

    private Fatbin(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** @return every entry, in file order */
    public List<Entry> entries() {
        return entries;
    }

    /**
     * @param arch an architecture, e.g. 90
     * @return the ELF (SASS) entry for {@code sm_<arch>}
     */
    public Optional<Entry> elf(int arch) {
        return entries.stream().filter(e -> e.kind() == Kind.ELF && e.arch() == arch).findFirst();
    }

    /** @return the PTX entries */
    public List<Entry> ptx() {
        return entries.stream().filter(e -> e.kind() == Kind.PTX).toList();
    }

    /**
     * @param image the bytes of an nvcc {@code -fatbin} file
     * @return its entries and their kernels
     * @throws NcclException with {@link Result#INVALID_ARGUMENT} if it is not a fatbin or is truncated
     */
    public static Fatbin parse(byte[] image) {
        ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        List<Entry> entries = new ArrayList<>();
        long at = 0;
        do {
            at = container(b, at, entries);
        } while (at + CONTAINER_HEADER <= image.length && b.getInt((int) at) == MAGIC);
        return new Fatbin(entries);
    }

    /** @return where the next container would start */
    private static long container(ByteBuffer b, long start, List<Entry> entries) {
        need(b, start, CONTAINER_HEADER, "the container header at " + start);
        int magic = b.getInt((int) start);
        if (magic != MAGIC) {
            throw bad(String.format("not a fatbin: magic 0x%08x at offset %d, expected 0x%08x", magic, start, MAGIC));
        }
        int headerSize = Short.toUnsignedInt(b.getShort((int) start + 6));
        long size = b.getLong((int) start + 8);
        long end = start + headerSize + size;
        need(b, start, headerSize + size, "the container at " + start + " (" + size + " bytes of entries)");
        long at = start + headerSize;
        while (at < end) {
            need(b, at, ENTRY_HEADER_MIN, "the entry header at " + at);
            int kind = Short.toUnsignedInt(b.getShort((int) at));
            long entryHeader = Integer.toUnsignedLong(b.getInt((int) at + 4));
            long payload = b.getLong((int) at + 8);
            long compressedSize = Integer.toUnsignedLong(b.getInt((int) at + 16));
            int arch = b.getInt((int) at + 28);
            long flags = b.getLong((int) at + 40);
            if (entryHeader < ENTRY_HEADER_MIN || payload < 0) {
                throw bad("fatbin entry at " + at + " has header size " + entryHeader + " and payload " + payload);
            }
            need(b, at, entryHeader + payload, "the entry at " + at + " (" + payload + " bytes)");
            boolean compressed = (flags & (FLAG_COMPRESSED_LZ4 | FLAG_COMPRESSED_ZSTD)) != 0 || compressedSize != 0;
            int data = (int) (at + entryHeader);
            Kind k = switch (kind) {
                case 1 -> Kind.PTX;
                case 2 -> Kind.ELF;
                default -> null; // other kinds (nvcc's own bookkeeping) hold no kernels
            };
            if (k != null) {
                List<String> kernels = compressed ? List.of()
                        : k == Kind.ELF ? ElfKernels.entryPoints(b, data, (int) payload, arch)
                        : PtxKernels.entryPoints(b, data, (int) payload);
                entries.add(new Entry(k, arch, compressed, payload, kernels));
            }
            at += entryHeader + payload;
        }
        return end;
    }

    private static void need(ByteBuffer b, long at, long bytes, String what) {
        if (at < 0 || bytes < 0 || at + bytes > b.capacity()) {
            throw bad("fatbin truncated: " + what + " ends at " + (at + bytes) + ", the image has " + b.capacity()
                    + " bytes");
        }
    }

    static NcclException bad(String detail) {
        return NcclException.of(Result.INVALID_ARGUMENT, detail,
                "pass the bytes of an nvcc -fatbin file (nccl-gpu-cuda builds kernels.fatbin with --no-compress)");
    }
}
