package org.nccl4j.core.peer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What each rank tells every other in AllGather1 ({@code ncclPeerInfo} plus what nccl4j adds
 * for clear errors: its version and host name).
 *
 * @param rank        the rank
 * @param device      the device index on its host (-1 until assigned)
 * @param gdrSupport  whether GPUDirect RDMA works from its device
 * @param hostHash    identity of its host (plus the communicator hash)
 * @param pidHash     identity of its process (plus the communicator hash)
 * @param shmDev      device number of its {@code /dev/shm}
 * @param busId       its device's bus id
 * @param pid         its process id (for liveness checks between processes of one host)
 * @param backend     its device backend's name
 * @param version     its nccl4j version
 * @param hostname    its host name, for messages
 * @param numaNode    the NUMA node its process runs on (-1 unknown), where topology detection places a host rank
 */
public record PeerInfo(int rank, int device, boolean gdrSupport, long hostHash, long pidHash, long shmDev,
                       long busId, long pid, String backend, String version, String hostname, int numaNode) {
    /** Encoded size: fixed so AllGather1 slices line up. */
    public static final int BYTES = 4 + 4 + 4 + 8 * 5 + 16 + 32 + 64 + 4;

    /** A peer whose NUMA node is unknown. */
    public PeerInfo(int rank, int device, boolean gdrSupport, long hostHash, long pidHash, long shmDev,
                    long busId, long pid, String backend, String version, String hostname) {
        this(rank, device, gdrSupport, hostHash, pidHash, shmDev, busId, pid, backend, version, hostname, -1);
    }

    /** @return the fixed-size encoding */
    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(BYTES);
        b.putInt(rank).putInt(device).putInt(gdrSupport ? 1 : 0);
        b.putLong(hostHash).putLong(pidHash).putLong(shmDev).putLong(busId).putLong(pid);
        putText(b, backend, 16);
        putText(b, version, 32);
        putText(b, hostname, 64);
        b.putInt(numaNode);
        return b.array();
    }

    /**
     * @param bytes  AllGather1's output
     * @param offset where this slice starts
     * @return the decoded info
     */
    public static PeerInfo decode(byte[] bytes, int offset) {
        ByteBuffer b = ByteBuffer.wrap(bytes, offset, BYTES);
        int rank = b.getInt();
        int device = b.getInt();
        boolean gdr = b.getInt() != 0;
        long hostHash = b.getLong();
        long pidHash = b.getLong();
        long shmDev = b.getLong();
        long busId = b.getLong();
        long pid = b.getLong();
        String backend = getText(b, 16);
        String version = getText(b, 32);
        String hostname = getText(b, 64);
        return new PeerInfo(rank, device, gdr, hostHash, pidHash, shmDev, busId, pid, backend, version, hostname,
                b.getInt());
    }

    private static void putText(ByteBuffer b, String s, int len) {
        byte[] raw = Arrays.copyOf(s.getBytes(StandardCharsets.UTF_8), len);
        raw[len - 1] = 0;
        b.put(raw);
    }

    private static String getText(ByteBuffer b, int len) {
        byte[] raw = new byte[len];
        b.get(raw);
        int n = 0;
        while (n < len && raw[n] != 0) {
            n++;
        }
        return new String(raw, 0, n, StandardCharsets.UTF_8);
    }
}
