package org.nccl4j.core.topo.xml;

import java.util.ArrayList;
import java.util.List;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * An XML document as NCCL holds it ({@code struct ncclXml}): up to {@link #MAX_NODES} elements in
 * creation order; the first one is the root ({@code system} for topologies, {@code graphs} for
 * graph files).
 */
public final class TopoXml {
    /** {@code MAX_STR_LEN}: longest name or value. */
    public static final int MAX_STR_LEN = 255;
    /** {@code MAX_ATTR_COUNT}: attributes kept per element. */
    public static final int MAX_ATTR_COUNT = 16;
    /** {@code MAX_SUBS}: children per element. */
    public static final int MAX_SUBS = 32;
    /** {@code MAX_NODES}: elements per document. */
    public static final int MAX_NODES = 1024;
    /** {@code NCCL_TOPO_XML_VERSION}. */
    public static final int TOPO_XML_VERSION = 1;
    /** RCCL's topology XML version. */
    public static final int RCCL_TOPO_XML_VERSION = 2;
    /** {@code NCCL_GRAPH_XML_VERSION}. */
    public static final int GRAPH_XML_VERSION = 1;

    private final List<XmlNode> nodes = new ArrayList<>();

    /** An empty document. */
    public TopoXml() {
    }

    /** @return the elements in creation order */
    public List<XmlNode> nodes() {
        return java.util.Collections.unmodifiableList(nodes);
    }

    /** @return the first element, or {@code null} for an empty document */
    public XmlNode root() {
        return nodes.isEmpty() ? null : nodes.get(0);
    }

    /**
     * {@code xmlAddNode}.
     *
     * @param parent the parent, {@code null} for a root
     * @param name   the element name
     * @return the new element
     */
    public XmlNode addNode(XmlNode parent, String name) {
        XmlNode n = new XmlNode(name);
        register(n);
        if (parent != null) {
            parent.attach(n);
        }
        return n;
    }

    void register(XmlNode n) {
        if (nodes.size() == MAX_NODES) {
            throw NcclException.of(Result.INTERNAL_ERROR, "Error : too many XML nodes (max " + MAX_NODES + ")", null);
        }
        nodes.add(n);
    }

    int size() {
        return nodes.size();
    }

    /**
     * {@code xmlFindTag}: the first element (removed ones included, as in NCCL) with that name.
     *
     * @param name an element name
     * @return the element or {@code null}
     */
    public XmlNode findTag(String name) {
        for (XmlNode n : nodes) {
            if (n.name().equals(name)) {
                return n;
            }
        }
        return null;
    }

    /**
     * {@code xmlFindTagKv}.
     *
     * @param name  an element name
     * @param key   an attribute name
     * @param value the wanted value
     * @return the element or {@code null}
     */
    public XmlNode findTagKv(String name, String key, String value) {
        for (XmlNode n : nodes) {
            if (n.name().equals(name) && value.equals(n.attr(key))) {
                return n;
            }
        }
        return null;
    }

    /**
     * {@code ncclTopoTrimXml}: removes branches without an element marked {@code keep="1"} and
     * drops the marks.
     */
    public void trim() {
        if (root() != null) {
            trimRec(root());
        }
    }

    private static void trimRec(XmlNode node) {
        String keep = node.attr("keep");
        if ("1".equals(keep)) {
            node.unsetAttr("keep");
            return;
        }
        for (XmlNode s : new ArrayList<>(node.subs())) {
            trimRec(s);
        }
        if (node.subs().isEmpty()) {
            node.remove();
        }
    }

    static String clip(String s) {
        return s.length() > MAX_STR_LEN ? s.substring(0, MAX_STR_LEN) : s;
    }
}
