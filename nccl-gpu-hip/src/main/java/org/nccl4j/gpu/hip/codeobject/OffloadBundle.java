package org.nccl4j.gpu.hip.codeobject;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.kernel.ElfSymbols;

/**
 * A clang offload bundle ({@code hipcc --genco}, what {@code hipModuleLoadData} takes): the magic
 * {@code __CLANG_OFFLOAD_BUNDLE__}, a count, then per entry its offset, size and id
 * ({@code hipv4-amdgcn-amd-amdhsa--gfx90a}, or the empty {@code host-...} entry), each device
 * entry an AMD GPU code object (ELF64). A code object's kernels are its global functions that
 * have a kernel descriptor ({@code <name>.kd}); {@code __device__} functions have none.
 *
 * @param entries the entries, in bundle order
 */
public record OffloadBundle(List<Entry> entries) {
    /** The bundle's magic. */
    public static final String MAGIC = "__CLANG_OFFLOAD_BUNDLE__";
    /** The id prefix of an AMD GPU code object for HIP, before its target ({@code gfx90a}). */
    public static final String HIP_PREFIX = "hipv4-amdgcn-amd-amdhsa--";

    /**
     * One entry.
     *
     * @param id      its id
     * @param size    its bytes
     * @param kernels its kernels (empty for the host entry)
     */
    public record Entry(String id, long size, List<String> kernels) {
        /** @return the AMD target ({@code gfx90a}, with any {@code :xnack} features), empty for the host entry */
        public Optional<String> target() {
            return id.startsWith(HIP_PREFIX) ? Optional.of(id.substring(HIP_PREFIX.length())) : Optional.empty();
        }

        @Override
        public String toString() {
            return id + " (" + size + " bytes, " + kernels.size() + " kernels)";
        }
    }

    /**
     * @param image the bundle's bytes
     * @return the bundle, each device entry's kernels listed
     * @throws NcclException with {@link Result#INVALID_ARGUMENT} for bytes that are no bundle, or
     *                       an entry or code object that lies outside them
     */
    public static OffloadBundle parse(byte[] image) {
        ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        byte[] magic = MAGIC.getBytes(StandardCharsets.US_ASCII);
        if (image.length < magic.length + 8 || !ByteBuffer.wrap(image, 0, magic.length).equals(ByteBuffer.wrap(magic))) {
            throw bad("not a clang offload bundle: no " + MAGIC + " at its start (" + image.length + " bytes)");
        }
        long count = b.getLong(magic.length);
        int at = magic.length + 8;
        if (count < 0 || count > 1024) {
            throw bad("an offload bundle of " + count + " entries");
        }
        List<Entry> entries = new ArrayList<>();
        for (long e = 0; e < count; e++) {
            need(image, at, 24, "entry " + e + "'s header");
            long offset = b.getLong(at);
            long size = b.getLong(at + 8);
            long idSize = b.getLong(at + 16);
            need(image, at + 24, idSize, "entry " + e + "'s id");
            String id = new String(image, at + 24, (int) idSize, StandardCharsets.US_ASCII);
            at += 24 + (int) idSize;
            need(image, offset, size, "entry " + id);
            List<String> kernels = id.startsWith(HIP_PREFIX) ? kernels(b, (int) offset, (int) size, id) : List.of();
            entries.add(new Entry(id, size, kernels));
        }
        return new OffloadBundle(List.copyOf(entries));
    }

    /**
     * @param target an AMD target, e.g. {@code gfx90a}
     * @return its code object's entry
     */
    public Optional<Entry> codeObject(String target) {
        return entries.stream().filter(e -> e.target().filter(target::equals).isPresent()).findFirst();
    }

    /** @return the targets with a code object, in bundle order */
    public List<String> targets() {
        return entries.stream().flatMap(e -> e.target().stream()).toList();
    }

    private static List<String> kernels(ByteBuffer b, int base, int length, String id) {
        List<ElfSymbols.Symbol> symbols = ElfSymbols.read(b, base, length, detail -> bad("the code object " + id + ": "
                + detail));
        Set<String> descriptors = new LinkedHashSet<>();
        for (ElfSymbols.Symbol s : symbols) {
            if (s.type() == ElfSymbols.STT_OBJECT && s.name().endsWith(".kd")) {
                descriptors.add(s.name().substring(0, s.name().length() - 3));
            }
        }
        Set<String> kernels = new LinkedHashSet<>(); // .symtab and .dynsym both list them
        for (ElfSymbols.Symbol s : symbols) {
            if (s.type() == ElfSymbols.STT_FUNC && s.bind() == ElfSymbols.STB_GLOBAL && descriptors.contains(s.name())) {
                kernels.add(s.name());
            }
        }
        return List.copyOf(kernels);
    }

    private static void need(byte[] image, long at, long bytes, String what) {
        if (at < 0 || bytes < 0 || at + bytes > image.length) {
            throw bad("offload bundle truncated: " + what + " ends at " + (at + bytes) + ", the image has "
                    + image.length + " bytes");
        }
    }

    private static NcclException bad(String detail) {
        return NcclException.of(Result.INVALID_ARGUMENT, detail,
                "pass the bytes of a hipcc --genco file (nccl-gpu-hip builds kernels.hipfb)");
    }
}
