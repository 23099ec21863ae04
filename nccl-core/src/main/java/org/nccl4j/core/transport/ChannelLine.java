package org.nccl4j.core.transport;

/**
 * NCCL's connection log line, {@code Channel 00 : 0[1b000] -> 1[1c000] [send] via NET/Socket/0}:
 * ranks with their devices' bus ids, so a line can be matched with the topology dump.
 */
final class ChannelLine {
    private ChannelLine() {
    }

    /**
     * @param ctx       the context (bus ids come from its peer infos)
     * @param channel   channel id
     * @param send      sending rank
     * @param recv      receiving rank
     * @param direction {@code "[send] "}, {@code "[receive] "} or {@code ""}
     * @param via       how, e.g. {@code direct shared memory}
     * @return the line
     */
    static String of(TransportContext ctx, int channel, int send, int recv, String direction, String via) {
        return String.format("Channel %02d : %d[%x] -> %d[%x] %svia %s", channel, send, ctx.peers().get(send).busId(),
                recv, ctx.peers().get(recv).busId(), direction, via);
    }
}
