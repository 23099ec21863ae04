package org.nccl4j.core.proto;

/**
 * NCCL's protocols ({@code NCCL_PROTO_LL}, {@code NCCL_PROTO_LL128}, {@code NCCL_PROTO_SIMPLE}),
 * in NCCL's order. Every connection carries one buffer of {@link ConnMem#STEPS} slots per
 * protocol ({@code ncclConnInfo.buffs[NCCL_NUM_PROTOCOLS]}); step counters are shared, so
 * consecutive operations on a connection may use different protocols.
 *
 * <p>It lives with the transports because it defines the connection memory's layout; the
 * kernel and the proxy read and write the lines.
 */
public enum Protocol {
    /**
     * Low latency: 16-byte lines of {@code data1, flag1, data2, flag2}; each 8-byte half is
     * stored at once, so a reader that sees both flags sees the line's 8 data bytes.
     */
    LL("LL"),
    /** 128-byte lines: 120 data bytes, then an 8-byte flag stored with release semantics. */
    LL128("LL128"),
    /** Whole steps published by a tail counter. */
    SIMPLE("Simple");

    private final String ncclName;

    Protocol(String ncclName) {
        this.ncclName = ncclName;
    }

    /** @return NCCL's code ({@code NCCL_PROTO_LL} = 0 .. {@code NCCL_PROTO_SIMPLE} = 2) */
    public int code() {
        return ordinal();
    }

    /** @return the name NCCL uses ({@code NCCL_PROTO} values, logs) */
    public String ncclName() {
        return ncclName;
    }

    /**
     * @param stepBytes bytes of one step slot of this protocol's buffer
     * @return the data bytes one step carries ({@code Proto::calcBytePerStep})
     */
    public int dataBytesPerStep(int stepBytes) {
        return switch (this) {
            case LL -> stepBytes / LlLine.BYTES * LlLine.DATA_BYTES;
            case LL128 -> stepBytes / Ll128Line.BYTES * Ll128Line.DATA_BYTES;
            case SIMPLE -> stepBytes;
        };
    }

    /**
     * @param dataBytes data bytes of one step
     * @return the bytes they occupy in the buffer (whole lines), i.e. what goes over the network
     */
    public int wireBytes(long dataBytes) {
        return switch (this) {
            case LL -> (int) (LlLine.lines(dataBytes) * LlLine.BYTES);
            case LL128 -> (int) (Ll128Line.lines(dataBytes) * Ll128Line.BYTES);
            case SIMPLE -> (int) dataBytes;
        };
    }
}
