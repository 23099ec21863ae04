package org.nccl4j.core.device.kernel;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The {@code .symtab} symbols of an ELF64 little-endian image, as GPU compilers emit them
 * (nvcc's cubins, hipcc's AMD GPU code objects): each backend picks its kernels from them by its
 * own mark. Every offset is checked against the image before it is read.
 */
public final class ElfSymbols {
    /** {@code STT_OBJECT}: a data object (an AMD kernel's descriptor, {@code <name>.kd}). */
    public static final int STT_OBJECT = 1;
    /** {@code STT_FUNC}: a function. */
    public static final int STT_FUNC = 2;
    /** {@code STB_GLOBAL}: visible outside the image. */
    public static final int STB_GLOBAL = 1;

    private static final int SHT_SYMTAB = 2;
    private static final int SYM_SIZE = 24;
    private static final int SECTION_HEADER_SIZE = 64;

    private ElfSymbols() {
    }

    /**
     * One symbol.
     *
     * @param name  its name
     * @param type  {@code st_info & 0xf} ({@link #STT_FUNC}, ...)
     * @param bind  {@code st_info >> 4} ({@link #STB_GLOBAL}, ...)
     * @param other {@code st_other} (nvcc marks entries there)
     */
    public record Symbol(String name, int type, int bind, int other) {
    }

    /**
     * @param image  bytes holding the ELF
     * @param base   where the ELF starts
     * @param length its size
     * @param bad    makes the exception for a malformed image from a description of what is wrong
     * @return the symbols of every {@code SHT_SYMTAB} section, in table order
     */
    public static List<Symbol> read(ByteBuffer image, int base, int length, Function<String, RuntimeException> bad) {
        ByteBuffer b = image.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (base < 0 || length < 64 || (long) base + length > b.capacity()) {
            throw bad.apply("an ELF of " + length + " bytes at " + base + " does not fit an image of " + b.capacity());
        }
        if (b.getInt(base) != 0x464c457f /* \x7fELF */ || b.get(base + 4) != 2 || b.get(base + 5) != 1) {
            throw bad.apply("not a 64-bit little-endian ELF");
        }
        long shoff = b.getLong(base + 0x28);
        int shentsize = Short.toUnsignedInt(b.getShort(base + 0x3a));
        int shnum = Short.toUnsignedInt(b.getShort(base + 0x3c));
        if (shentsize != SECTION_HEADER_SIZE || shoff < 0 || shoff + (long) shnum * shentsize > length) {
            throw bad.apply("section headers outside the ELF (offset " + shoff + ", " + shnum + " of " + shentsize
                    + " bytes, ELF of " + length + " bytes)");
        }
        List<Symbol> symbols = new ArrayList<>();
        for (int s = 0; s < shnum; s++) {
            int sh = base + (int) shoff + s * shentsize;
            if (b.getInt(sh + 4) != SHT_SYMTAB) {
                continue;
            }
            long symOff = b.getLong(sh + 0x18);
            long symSize = b.getLong(sh + 0x20);
            int link = b.getInt(sh + 0x28);
            if (link < 0 || link >= shnum) {
                throw bad.apply(".symtab links to section " + link + " of " + shnum);
            }
            int strSh = base + (int) shoff + link * shentsize;
            long strOff = b.getLong(strSh + 0x18);
            long strSize = b.getLong(strSh + 0x20);
            if (symOff < 0 || symSize < 0 || symOff + symSize > length || strOff < 0 || strSize < 0
                    || strOff + strSize > length) {
                throw bad.apply("the symbol or string table lies outside the ELF");
            }
            for (long at = symOff; at + SYM_SIZE <= symOff + symSize; at += SYM_SIZE) {
                int sym = base + (int) at;
                int info = Byte.toUnsignedInt(b.get(sym + 4));
                String name = string(b, base + (int) strOff, (int) strSize, b.getInt(sym), bad);
                symbols.add(new Symbol(name, info & 0xf, info >> 4, Byte.toUnsignedInt(b.get(sym + 5))));
            }
        }
        return symbols;
    }

    private static String string(ByteBuffer b, int table, int size, int index, Function<String, RuntimeException> bad) {
        if (index < 0 || index >= size) {
            throw bad.apply("a symbol name at " + index + " outside its string table of " + size + " bytes");
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
