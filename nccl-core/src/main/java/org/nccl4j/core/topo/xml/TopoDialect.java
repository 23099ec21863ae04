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

    /** @return the {@code version} attribute the {@code system} element must carry */
    public int version() {
        return version;
    }

    /** @return the name of the GPU link element ({@code nvlink} or {@code xgmi}) */
    public String linkElement() {
        return linkElement;
    }
}
