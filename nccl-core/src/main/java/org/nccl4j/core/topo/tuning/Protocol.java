package org.nccl4j.core.topo.tuning;

/** Wire protocols ({@code NCCL_PROTO_*}). */
public enum Protocol {
    /** {@code NCCL_PROTO_LL}: 8-byte flag+data stores. */
    LL("LL"),
    /** {@code NCCL_PROTO_LL128}: 128-byte lines with one flag word. */
    LL128("LL128"),
    /** {@code NCCL_PROTO_SIMPLE}: bulk copies with step flags. */
    SIMPLE("Simple");

    private final String ncclName;

    Protocol(String ncclName) {
        this.ncclName = ncclName;
    }

    /** @return NCCL's code (0..2) */
    public int code() {
        return ordinal();
    }

    /** @return NCCL's name ({@code ncclProtoStr}), as {@code NCCL_PROTO} spells it */
    public String ncclName() {
        return ncclName;
    }
}
