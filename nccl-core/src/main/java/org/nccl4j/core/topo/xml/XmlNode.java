package org.nccl4j.core.topo.xml;

import org.nccl4j.core.debug.CFormat;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * One element of NCCL's XML tree ({@code struct ncclXmlNode}): a name, ordered attributes (at
 * most {@link TopoXml#MAX_ATTR_COUNT}, values cut at {@link TopoXml#MAX_STR_LEN}) and ordered
 * children (at most {@link TopoXml#MAX_SUBS}).
 */
public final class XmlNode {
    /** Parser node kinds ({@code NODE_TYPE_*}). */
    public static final int TYPE_NONE = 0;
    /** An opening tag. */
    public static final int TYPE_OPEN = 1;
    /** A closing tag. */
    public static final int TYPE_CLOSE = 2;
    /** A self-closing tag. */
    public static final int TYPE_SINGLE = 3;

    private String name;
    private final List<String> keys = new ArrayList<>();
    private final List<String> values = new ArrayList<>();
    private final List<XmlNode> subs = new ArrayList<>();
    private XmlNode parent;
    int type;

    XmlNode(String name) {
        this.name = TopoXml.clip(name);
    }

    /** @return the element name */
    public String name() {
        return name;
    }

    void rename(String n) {
        name = TopoXml.clip(n);
    }

    /** @return the parent element, {@code null} for the root */
    public XmlNode parent() {
        return parent;
    }

    /** @return the children in document order (read-only view) */
    public List<XmlNode> subs() {
        return Collections.unmodifiableList(subs);
    }

    /** @return the number of attributes */
    public int attrCount() {
        return keys.size();
    }

    /**
     * @param i an attribute index
     * @return its key
     */
    public String key(int i) {
        return keys.get(i);
    }

    /**
     * @param i an attribute index
     * @return its value
     */
    public String value(int i) {
        return values.get(i);
    }

    /**
     * {@code xmlGetAttrIndex}.
     *
     * @param key an attribute name
     * @return its index or -1
     */
    public int attrIndex(String key) {
        for (int a = 0; a < keys.size(); a++) {
            if (keys.get(a).equals(key)) {
                return a;
            }
        }
        return -1;
    }

    /**
     * {@code xmlGetAttr}.
     *
     * @param key an attribute name
     * @return its value or {@code null}
     */
    public String attr(String key) {
        int i = attrIndex(key);
        return i < 0 ? null : values.get(i);
    }

    /**
     * {@code xmlGetAttrStr}: a required attribute.
     *
     * @param key an attribute name
     * @return its value
     * @throws NcclException INTERNAL_ERROR when absent
     */
    public String attrStr(String key) {
        String v = attr(key);
        if (v == null) {
            throw NcclException.of(Result.INTERNAL_ERROR, "Attribute " + key + " of node " + name + " not found",
                    "check the topology XML");
        }
        return v;
    }

    /**
     * {@code xmlGetAttrInt}: a required attribute read with {@code strtol(s, NULL, 0)}.
     *
     * @param key an attribute name
     * @return its value
     */
    public int attrInt(String key) {
        return CNum.atoi0(attrStr(key));
    }

    /**
     * {@code xmlGetAttrFloat}: a required attribute read with {@code strtof}.
     *
     * @param key an attribute name
     * @return its value
     */
    public float attrFloat(String key) {
        return CNum.strtof(attrStr(key));
    }

    /**
     * {@code xmlSetAttr}: replaces or appends an attribute.
     *
     * @param key   the attribute name
     * @param value its value
     */
    public void setAttr(String key, String value) {
        int i = attrIndex(key);
        if (i < 0) {
            if (keys.size() >= TopoXml.MAX_ATTR_COUNT) {
                throw NcclException.of(Result.INTERNAL_ERROR, "too many attributes on " + name, null);
            }
            keys.add(TopoXml.clip(key));
            values.add(TopoXml.clip(value));
        } else {
            values.set(i, TopoXml.clip(value));
        }
    }

    /**
     * {@code xmlSetAttrInt} ({@code %d}).
     *
     * @param key   the attribute name
     * @param value its value
     */
    public void setAttrInt(String key, int value) {
        setAttr(key, Integer.toString(value));
    }

    /**
     * {@code xmlSetAttrFloat} ({@code %g}).
     *
     * @param key   the attribute name
     * @param value its value
     */
    public void setAttrFloat(String key, float value) {
        setAttr(key, CFormat.g(value));
    }

    /**
     * {@code xmlUnsetAttr}.
     *
     * @param key the attribute name
     */
    public void unsetAttr(String key) {
        int i = attrIndex(key);
        if (i >= 0) {
            keys.remove(i);
            values.remove(i);
        }
    }

    /** Parser helper: appends an attribute as read, without the duplicate check. */
    void addParsedAttr(String key, String value) {
        keys.add(key);
        values.add(value);
    }

    /**
     * {@code xmlGetSub}.
     *
     * @param subName a child element name
     * @return the first child with that name or {@code null}
     */
    public XmlNode sub(String subName) {
        for (XmlNode s : subs) {
            if (s.name.equals(subName)) {
                return s;
            }
        }
        return null;
    }

    /**
     * {@code xmlGetSubKv}.
     *
     * @param subName a child element name
     * @param key     an attribute name
     * @param value   the wanted value
     * @return the first matching child or {@code null}
     */
    public XmlNode subKv(String subName, String key, String value) {
        for (XmlNode s : subs) {
            if (s.name.equals(subName) && value.equals(s.attr(key))) {
                return s;
            }
        }
        return null;
    }

    /**
     * Makes {@code child} (a parentless element) this element's last sub-element, as topology
     * detection does when it finds a device's parent.
     *
     * @param child the element to attach
     */
    public void attach(XmlNode child) {
        if (subs.size() >= TopoXml.MAX_SUBS) {
            throw NcclException.of(Result.INTERNAL_ERROR, "Error : too many sub-nodes of " + name + " (max "
                    + TopoXml.MAX_SUBS + ")", null);
        }
        subs.add(child);
        child.parent = this;
    }

    /** {@code xmlRemoveNode}: detaches this element from its parent. */
    public void remove() {
        type = TYPE_NONE;
        if (parent != null) {
            parent.subs.remove(this);
        }
    }
}
