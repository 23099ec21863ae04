package org.nccl4j.gpu.cuda.fatbin;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The kernel entry points of PTX text: its {@code .entry} directives. */
final class PtxKernels {
    /** {@code [.visible|.weak] .entry name(} at the start of a line. */
    private static final Pattern ENTRY = Pattern.compile(
            "^\\s*(?:\\.(?:visible|weak)\\s+)?\\.entry\\s+([A-Za-z_$%][\\w$]*)", Pattern.MULTILINE);

    private PtxKernels() {
    }

    /**
     * @param b      the image
     * @param offset where the PTX starts
     * @param length its payload size (NUL padding after the text is ignored)
     * @return the entry names, in order
     */
    static List<String> entryPoints(ByteBuffer b, int offset, int length) {
        int end = offset;
        while (end < offset + length && b.get(end) != 0) {
            end++;
        }
        byte[] text = new byte[end - offset];
        b.get(offset, text);
        return entryPoints(new String(text, StandardCharsets.US_ASCII));
    }

    /**
     * @param ptx PTX text
     * @return the entry names, in order
     */
    static List<String> entryPoints(String ptx) {
        List<String> names = new ArrayList<>();
        Matcher m = ENTRY.matcher(ptx);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }
}
