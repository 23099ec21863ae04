package org.nccl4j.gpu.cuda;

/** PCI bus ids as NCCL compares them. */
final class BusId {
    private BusId() {
    }

    /**
     * NCCL's {@code busIdToInt64}: the hex digits of a bus id read as one number, skipping
     * {@code :} and {@code .}, up to the first other character ({@code "0000:3b:00.0"} is 0x3b000).
     *
     * @param busId the bus id text
     * @return its numeric id
     */
    static long toInt64(String busId) {
        long id = 0;
        for (int i = 0; i < busId.length(); i++) {
            char c = busId.charAt(i);
            if (c == ':' || c == '.') {
                continue;
            }
            int d = Character.digit(c, 16);
            if (d < 0) {
                break;
            }
            id = (id << 4) | d;
        }
        return id;
    }

    /**
     * NCCL's {@code int64ToBusId}: {@code %04lx:%02lx:%02lx.%01lx}.
     *
     * @param id a numeric bus id
     * @return its text
     */
    static String toText(long id) {
        return String.format("%04x:%02x:%02x.%01x", id >> 20, (id & 0xff000) >> 12, (id & 0xff0) >> 4, id & 0xf);
    }
}
