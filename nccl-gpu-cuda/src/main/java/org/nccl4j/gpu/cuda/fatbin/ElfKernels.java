package org.nccl4j.gpu.cuda.fatbin;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The kernel entry points of a cubin (ELF64, little-endian): the symbols of {@code .symtab}
 * that are functions ({@code STT_FUNC}) marked as CUDA entries ({@code STO_CUDA_ENTRY}, 0x10 in
 * {@code st_other}). {@code __device__} functions that were not inlined are functions too, but
 * local and without the mark, so they are not listed.
 */
final class ElfKernels {
    private static final int SHT_SYMTAB = 2;
    private static final int STT_FUNC = 2;
    private static final int STO_CUDA_ENTRY = 0x10;
    private static final int SYM_SIZE = 24;
    private static final int SECTION_HEADER_SIZE = 64;

    private ElfKernels() {
    }

    /**
     * @param b      the fatbin image (little-endian)
     * @param base   where the ELF starts
     * @param length its size
     * @param arch   its architecture, for messages
     * @return the entry names, in symbol-table order
     */
    static List<String> entryPoints(ByteBuffer b, int base, int length, int arch) {
        String what = "the cubin for sm_" + arch;
        if (length < 64 || b.getInt(base) != 0x464c457f /* \x7fELF */ || b.get(base + 4) != 2 || b.get(base + 5) != 1) {
            throw Fatbin.bad(what + " is not a 64-bit little-endian ELF");
        }
        long shoff = b.getLong(base + 0x28);
        int shentsize = Short.toUnsignedInt(b.getShort(base + 0x3a));
        int shnum = Short.toUnsignedInt(b.getShort(base + 0x3c));
        if (shentsize != SECTION_HEADER_SIZE || shoff < 0 || shoff + (long) shnum * shentsize > length) {
            throw Fatbin.bad(what + " has section headers outside it (offset " + shoff + ", " + shnum + " of "
                    + shentsize + " bytes, ELF of " + length + " bytes)");
        }
        List<String> names = new ArrayList<>();
        for (int s = 0; s < shnum; s++) {
            int sh = base + (int) shoff + s * shentsize;
            if (b.getInt(sh + 4) != SHT_SYMTAB) {
                continue;
            }
            long symOff = b.getLong(sh + 0x18);
            long symSize = b.getLong(sh + 0x20);
            int link = b.getInt(sh + 0x28);
            if (link < 0 || link >= shnum) {
                throw Fatbin.bad(what + ": .symtab links to section " + link + " of " + shnum);
            }
            int strSh = base + (int) shoff + link * shentsize;
            long strOff = b.getLong(strSh + 0x18);
            long strSize = b.getLong(strSh + 0x20);
            if (symOff < 0 || symOff + symSize > length || strOff < 0 || strOff + strSize > length) {
                throw Fatbin.bad(what + ": its symbol or string table lies outside it");
            }
            for (long at = symOff; at + SYM_SIZE <= symOff + symSize; at += SYM_SIZE) {
                int sym = base + (int) at;
                int info = Byte.toUnsignedInt(b.get(sym + 4));
                int other = Byte.toUnsignedInt(b.get(sym + 5));
                if ((info & 0xf) == STT_FUNC && (other & STO_CUDA_ENTRY) != 0) {
                    names.add(string(b, base + (int) strOff, (int) strSize, b.getInt(sym), what));
                }
            }
        }
        return names;
    }

    private static String string(ByteBuffer b, int table, int size, int index, String what) {
        if (index < 0 || index >= size) {
            throw Fatbin.bad(what + ": symbol name at " + index + " outside its string table of " + size + " bytes");
        }
        int end = table + index;
        while (end < table + size && b.get(end) != 0) {
            end++;
        }
        byte[] name = new byte[end - table - index];
        b.get(table + index, name);
        return new String(name, StandardCharsets.US_ASCII);
    }
}
