package org.nccl4j.core.transport;

/**
 * Where a rank's NET connections use GPU Direct RDMA, by network device (NCCL's
 * {@code ncclTopoCheckGdr}, asked once per device and direction at init): the network reads a
 * send end's LL128 and Simple buffers from GPU memory and writes a receive end's buffers into
 * GPU memory, instead of both going through host memory.
 *
 * @param send by device: sends read GPU memory ({@code NCCL_NET_GDR_READ})
 * @param recv by device: receives write GPU memory
 */
public record NetGdr(boolean[] send, boolean[] recv) {
    /** No GPU Direct RDMA anywhere: host ranks, and GPUs the network cannot reach. */
    public static final NetGdr NONE = new NetGdr(new boolean[0], new boolean[0]);

    /**
     * @param dev  a network device
     * @param send which end
     * @return whether that end's connections on {@code dev} use GPU Direct RDMA
     */
    public boolean uses(int dev, boolean send) {
        boolean[] by = send ? this.send : recv;
        return dev < by.length && by[dev];
    }
}
