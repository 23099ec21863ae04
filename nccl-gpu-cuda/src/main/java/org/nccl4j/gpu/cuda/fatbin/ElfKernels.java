package org.nccl4j.gpu.cuda.fatbin;

import java.nio.ByteBuffer;
import java.util.List;
import org.nccl4j.core.device.kernel.ElfSymbols;

/**
 * The kernel entry points of a cubin: the symbols that are functions ({@code STT_FUNC}) marked
 * as CUDA entries ({@code STO_CUDA_ENTRY}, 0x10 in {@code st_other}). {@code __device__}
 * functions that were not inlined are functions too, but local and without the mark, so they
 * are not listed.
 */
final class ElfKernels {
    private static final int STO_CUDA_ENTRY = 0x10;

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
        return ElfSymbols.read(b, base, length, detail -> Fatbin.bad("the cubin for sm_" + arch + ": " + detail)).stream()
                .filter(s -> s.type() == ElfSymbols.STT_FUNC && (s.other() & STO_CUDA_ENTRY) != 0)
                .map(ElfSymbols.Symbol::name).toList();
    }
}
