package org.nccl4j.core.topo.xml;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.nccl4j.core.debug.Log;

/**
 * NCCL's XML writer ({@code ncclTopoDumpXmlToFile}): two-space indentation, attributes in
 * stored order as {@code key="value"}, childless elements self-closed.
 */
public final class XmlWriter {
    private XmlWriter() {
    }

    /**
     * Formats a document from its root.
     *
     * @param xml the document
     * @return the text NCCL writes
     */
    public static String toText(TopoXml xml) {
        StringBuilder sb = new StringBuilder();
        if (xml.root() != null) {
            dump(sb, 0, xml.root());
        }
        return sb.toString();
    }

    /**
     * Writes a document; like NCCL, a file that cannot be opened only logs a warning.
     *
     * @param file the destination
     * @param xml  the document
     */
    public static void write(Path file, TopoXml xml) {
        try {
            Files.write(file, toText(xml).getBytes(StandardCharsets.ISO_8859_1));
        } catch (IOException e) {
            Log.warn("Unable to open %s, not dumping topology.", file);
        }
    }

    private static void dump(StringBuilder sb, int indent, XmlNode node) {
        sb.append(" ".repeat(indent)).append('<').append(node.name());
        for (int a = 0; a < node.attrCount(); a++) {
            sb.append(' ').append(node.key(a)).append("=\"").append(node.value(a)).append('"');
        }
        if (node.subs().isEmpty()) {
            sb.append("/>\n");
            return;
        }
        sb.append(">\n");
        for (XmlNode s : node.subs()) {
            dump(sb, indent + 2, s);
        }
        sb.append(" ".repeat(indent)).append("</").append(node.name()).append(">\n");
    }
}
