package org.nccl4j.core.topo.xml;

/**
 * Which topology XML flavour a file is read as.
 *
 * <p>{@link #NCCL}: NCCL v2.10.3's format ({@code <system version="1">}, {@code <nvlink>}).
 * {@link #RCCL}: AMD RCCL's format ({@code version="2"}, {@code <xgmi>} links, extra
 * {@code gcn}/{@code arch} GPU attributes); xGMI links become NVLink-class links
 * ({@code LINK_NVL}) as RCCL builds them, see {@code TopoSystemBuilder}.
 */
public enum TopoDialect {
    /** NCCL's topology XML, version 1. */
    NCCL(TopoXml.TOPO_XML_VERSION, "nvlink"),
    /** RCCL's topology XML, version 2 with {@code <xgmi>} links. */
    RCCL(TopoXml.RCCL_TOPO_XML_VERSION, "xgmi");

    private final int version;
    private final String linkElement;

    TopoDialect(int version, String linkElement) {
        this.version = version;
        this.linkElement = linkElement;
    }

    /**
     * The dialect a topology document is written in, from its {@code system} element's
     * {@code version}: RCCL's for {@code 2}, NCCL's otherwise (which then rejects any version but
     * {@code 1}, as NCCL does).
     *
     * @param version the {@code version} attribute of the {@code system} element
     * @return the dialect
     */
    public static TopoDialect ofVersion(int version) {
        return version == RCCL.version ? RCCL : NCCL;
    }

    /**
     * The dialect of a parsed topology document ({@link #ofVersion} of its {@code system}
     * element); NCCL's for a document without one or without a version.
     *
     * @param xml a topology document
     * @return the dialect
     */
    public static TopoDialect of(TopoXml xml) {
        XmlNode system = xml.findTag("system");
        String version = system == null ? null : system.attr("version");
        return version == null ? NCCL : ofVersion(system.attrInt("version"));
    }

    /** @return the {@code version} attribute the {@code system} element must carry */
    public int version() {
        return version;
    }

    /** @return the name of the GPU link element ({@code nvlink} or {@code xgmi}) */
    public String linkElement() {
        return linkElement;
    }
}
