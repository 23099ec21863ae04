package org.nccl4j.core.topo.xml;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;

/**
 * NCCL's XML reader ({@code xmlGetNode}/{@code xmlLoadSub} and the topology and graph handler
 * tables of {@code xml.cc}), with its exact grammar: only spaces, CR and LF separate tokens (a TAB
 * is an error), values must be double-quoted (a {@code '}-quoted value must still end with
 * {@code "}), {@code <?xml ?>} declarations are rejected, comments are skipped, elements the
 * schema does not know are dropped with their content, attributes past the 16th are dropped.
 */
public final class XmlReader {
    /** The children each element may have, by element name; the root entry has key "". */
    private record Schema(Map<String, String[]> children) {
        String[] of(String name) {
            return children.getOrDefault(name, new String[0]);
        }
    }

    private static Schema topoSchema(TopoDialect d) {
        return new Schema(Map.of("", new String[] {"system"}, "system", new String[] {"cpu"},
                "cpu", new String[] {"pci", "nic"}, "pci", new String[] {"pci", "gpu", "nic"},
                "gpu", new String[] {d.linkElement()}, "nic", new String[] {"net"}));
    }

    private static final Schema GRAPH_SCHEMA = new Schema(Map.of("", new String[] {"graphs"},
            "graphs", new String[] {"graph"}, "graph", new String[] {"channel"}, "channel", new String[] {"net", "gpu"}));

    private final byte[] buf;
    private int pos;
    private final TopoXml xml = new TopoXml();
    private Schema schema;
    private TopoDialect dialect;
    /** Whether the {@code system} element's version picks {@link #dialect} (and {@link #schema}). */
    private final boolean autoDialect;

    private XmlReader(byte[] buf, Schema schema, TopoDialect dialect, boolean autoDialect) {
        this.buf = buf;
        this.schema = schema;
        this.dialect = dialect;
        this.autoDialect = autoDialect;
    }

    /**
     * Reads a topology file in whichever dialect its {@code system} element's {@code version}
     * names ({@link TopoDialect#ofVersion}); {@link TopoDialect#of(TopoXml)} tells the result's.
     *
     * @param file the file
     * @return the document
     * @throws NcclException SYSTEM_ERROR if the file cannot be read, INTERNAL_ERROR for syntax
     *                       errors, INVALID_USAGE for a version other than 1 or 2
     */
    public static TopoXml readTopology(Path file) {
        Log.info(Subsys.GRAPH, "Loading topology file %s", file);
        return readTopology(read(file, "topology"));
    }

    /**
     * Reads a topology document from bytes in whichever dialect its {@code system} element's
     * {@code version} names.
     *
     * @param content the file content
     * @return the document
     */
    public static TopoXml readTopology(byte[] content) {
        // The schema only differs below <gpu>, and <system> (the root) is read first: it can pick.
        XmlReader r = new XmlReader(content, topoSchema(TopoDialect.NCCL), TopoDialect.NCCL, true);
        r.loadSub(null, "");
        return r.xml;
    }

    /**
     * {@code ncclTopoGetXmlFromFile}: reads a topology file.
     *
     * @param file    the file
     * @param dialect NCCL's or RCCL's flavour
     * @return the document
     * @throws NcclException SYSTEM_ERROR if the file cannot be read, INTERNAL_ERROR for syntax
     *                       errors, INVALID_USAGE for a wrong version
     */
    public static TopoXml readTopology(Path file, TopoDialect dialect) {
        Log.info(Subsys.GRAPH, "Loading topology file %s", file);
        return readTopology(read(file, "topology"), dialect);
    }

    /**
     * Reads a topology document from bytes.
     *
     * @param content the file content
     * @param dialect NCCL's or RCCL's flavour
     * @return the document
     */
    public static TopoXml readTopology(byte[] content, TopoDialect dialect) {
        XmlReader r = new XmlReader(content, topoSchema(dialect), dialect, false);
        r.loadSub(null, "");
        return r.xml;
    }

    /**
     * {@code ncclTopoGetXmlGraphFromFile}: reads an {@code NCCL_GRAPH_FILE}.
     *
     * @param file the file
     * @return the document
     * @throws NcclException SYSTEM_ERROR if the file cannot be read
     */
    public static TopoXml readGraphs(Path file) {
        return readGraphs(read(file, "graph"));
    }

    /**
     * Reads a graph document from bytes.
     *
     * @param content the file content
     * @return the document
     */
    public static TopoXml readGraphs(byte[] content) {
        XmlReader r = new XmlReader(content, GRAPH_SCHEMA, null, false);
        r.loadSub(null, "");
        return r.xml;
    }

    private static byte[] read(Path file, String what) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw NcclException.of(Result.SYSTEM_ERROR, "Could not open XML " + what + " file " + file + " : " + e.getMessage(),
                    "check the path", e);
        }
    }

    private static NcclException error(String msg) {
        return NcclException.of(Result.INTERNAL_ERROR, msg, "fix the XML file");
    }

    private char getChar() {
        if (pos >= buf.length) {
            throw error("XML Parse : Unexpected EOF");
        }
        return (char) (buf[pos++] & 0xff);
    }

    /** Token result: the text read and the character that ended it. */
    private String tokenText;
    private String tokenValue;
    private char last;

    /** {@code xmlGetToken}: a name up to a separator, or {@code name=value}. */
    private void getToken(boolean valueAllowed) {
        StringBuilder sb = new StringBuilder();
        tokenValue = null;
        char c;
        do {
            c = getChar();
            if (c == '=') {
                tokenText = sb.toString();
                if (!valueAllowed) {
                    throw error("XML Parse : Unexpected value with name " + tokenText);
                }
                getValue();
                return;
            }
            if (sb.length() == TopoXml.MAX_STR_LEN - 1) {
                throw error("Error : name " + sb + " too long (max " + TopoXml.MAX_STR_LEN + ")");
            }
            sb.append(c);
        } while (c != ' ' && c != '>' && c != '/' && c != '\n' && c != '\r');
        sb.setLength(sb.length() - 1);
        tokenText = sb.toString();
        last = c;
    }

    /** {@code xmlGetValue}: a quoted value, always ended by a double quote. */
    private void getValue() {
        char c = getChar();
        if (c != '"' && c != '\'') {
            throw error("XML Parse : Expected (double) quote.");
        }
        StringBuilder sb = new StringBuilder();
        do {
            c = getChar();
            sb.append(c);
        } while (c != '"');
        sb.setLength(sb.length() - 1);
        if (sb.length() > TopoXml.MAX_STR_LEN) {
            // NCCL would overflow its fixed buffer here; refuse instead.
            throw error("XML Parse : value too long (max " + TopoXml.MAX_STR_LEN + ")");
        }
        tokenValue = sb.toString();
        last = getChar();
    }

    /** {@code xmlSkipComment}: consumes up to and including {@code -->}. */
    private void skipComment(String start, char next) {
        char[] end = {'.', '.', '.'};
        for (int i = 0; i < start.length(); i++) {
            shift(end, start.charAt(i));
        }
        shift(end, next);
        while (!(end[0] == '-' && end[1] == '-' && end[2] == '>')) {
            if (pos >= buf.length) {
                throw error("XML Parse error : unterminated comment");
            }
            shift(end, (char) (buf[pos++] & 0xff));
        }
    }

    private static void shift(char[] s, char c) {
        s[0] = s[1];
        s[1] = s[2];
        s[2] = c;
    }

    /** {@code xmlGetNode}: reads the next tag; {@code TYPE_NONE} at end of input. */
    private XmlNode getNode() {
        XmlNode node = new XmlNode("");
        node.type = XmlNode.TYPE_NONE;
        char c = ' ';
        while (c == ' ' || c == '\n' || c == '\r') {
            if (pos >= buf.length) {
                return node;
            }
            c = (char) (buf[pos++] & 0xff);
        }
        if (c != '<') {
            throw error("XML Parse error : expecting '<', got '" + c + "'");
        }
        getToken(false);
        node.rename(tokenText);
        c = last;
        if (node.name().startsWith("!--")) {
            skipComment(node.name().substring(3), c);
            return getNode();
        }
        if (node.name().isEmpty() && c == '/') {
            node.type = XmlNode.TYPE_CLOSE;
            getToken(false);
            node.rename(tokenText);
            if (last != '>') {
                throw error("XML Parse error : unexpected trailing " + last + " in closing tag " + node.name());
            }
            return node;
        }
        node.type = XmlNode.TYPE_OPEN;
        int a = 0;
        while (c == ' ') {
            getToken(true);
            c = last;
            if (a == TopoXml.MAX_ATTR_COUNT) {
                Log.info(Subsys.GRAPH, "XML Parse : Ignoring extra attributes (max %d)", TopoXml.MAX_ATTR_COUNT);
            } else {
                node.addParsedAttr(tokenText, tokenValue == null ? "" : tokenValue);
                a++;
            }
        }
        if (c == '/') {
            node.type = XmlNode.TYPE_SINGLE;
            getToken(false);
            c = last;
        }
        if (c != '>') {
            throw error("XML Parse : expected >, got '" + c + "'");
        }
        return node;
    }

    /** {@code xmlLoadSub} with the handler table of {@code headName}. */
    private void loadSub(XmlNode head, String headName) {
        if (head != null && head.type == XmlNode.TYPE_SINGLE) {
            return;
        }
        String[] handlers = schema.of(headName);
        while (true) {
            checkRoom();
            XmlNode node = getNode();
            if (node.type == XmlNode.TYPE_NONE) {
                if (head != null) {
                    throw error("XML Parse : unterminated " + head.name());
                }
                return;
            }
            if (head != null && node.type == XmlNode.TYPE_CLOSE) {
                if (!node.name().equals(head.name())) {
                    throw error("XML Mismatch : " + head.name() + " / " + node.name());
                }
                return;
            }
            boolean found = false;
            for (String h : handlers) {
                if (node.name().equals(h)) {
                    xml.register(node);
                    if (head != null) {
                        head.attach(node);
                    }
                    handle(node);
                    found = true;
                    break;
                }
            }
            if (!found) {
                if (handlers.length > 0) {
                    Log.info(Subsys.GRAPH, "Ignoring element %s", node.name());
                }
                skipSub(node);
            }
        }
    }

    /**
     * The content of an element NCCL does not keep. NCCL parses it into the one free slot of
     * its node array, so every child overwrites its parent: any closing tag ends the element.
     */
    private void skipSub(XmlNode head) {
        if (head.type == XmlNode.TYPE_SINGLE) {
            return;
        }
        while (true) {
            checkRoom();
            XmlNode node = getNode();
            if (node.type == XmlNode.TYPE_NONE) {
                throw error("XML Parse : unterminated " + node.name());
            }
            if (node.type == XmlNode.TYPE_CLOSE) {
                return;
            }
            skipSub(node);
        }
    }

    private void checkRoom() {
        if (xml.size() == TopoXml.MAX_NODES) {
            throw error("Error : XML parser is limited to 1024 nodes");
        }
    }

    private void handle(XmlNode node) {
        if (node.name().equals("system") && dialect != null) {
            int version = node.attrInt("version");
            if (autoDialect) {
                dialect = TopoDialect.ofVersion(version);
                schema = topoSchema(dialect);
            }
            if (version != dialect.version()) {
                throw NcclException.of(Result.INVALID_USAGE, "XML Topology has wrong version " + version + ", "
                        + dialect.version() + " needed", "use a version " + dialect.version() + " topology file");
            }
            String name = node.attr("name");
            if (name != null) {
                Log.info(Subsys.GRAPH, "Loading topology %s", name);
            } else {
                Log.info(Subsys.GRAPH, "Loading unnamed topology");
            }
        } else if (node.name().equals("graphs") && dialect == null) {
            int version = node.attrInt("version");
            if (version != TopoXml.GRAPH_XML_VERSION) {
                throw NcclException.of(Result.INVALID_USAGE, "XML Graph has wrong version " + version + ", "
                        + TopoXml.GRAPH_XML_VERSION + " needed", "use a version 1 graph file");
            }
            String name = node.attr("name");
            if (name != null) {
                Log.info(Subsys.GRAPH, "Loading graphs for topology %s", name);
            } else {
                Log.info(Subsys.GRAPH, "Loading graphs");
            }
        }
        loadSub(node, node.name());
    }
}
