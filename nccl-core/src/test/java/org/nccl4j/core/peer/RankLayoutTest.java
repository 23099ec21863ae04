package org.nccl4j.core.peer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclUsageException;
import org.nccl4j.Result;

class RankLayoutTest {
    private static PeerInfo peer(int rank, long host, long pid, long bus, String version) {
        return new PeerInfo(rank, -1, false, host, pid, 7, bus, 100 + rank, "host", version, "h" + host);
    }

    @Test
    void nodesLocalAndProcessRanks() {
        List<PeerInfo> peers = List.of(peer(0, 100, 1, 10, "v"), peer(1, 200, 2, 11, "v"), peer(2, 100, 1, 12, "v"),
                peer(3, 200, 3, 13, "v"));
        RankLayout l = RankLayout.of(peers, 3);
        assertEquals(2, l.nodeCount());
        assertEquals(1, l.node());
        assertArrayEquals(new int[] {1, 3}, l.localRanks());
        assertEquals(1, l.localRank());
        assertArrayEquals(new int[] {3}, l.processRanks());
        assertArrayEquals(new int[] {0, 1, 0, 1}, l.nodeOfRank());
        assertArrayEquals(new int[] {0, 2}, RankLayout.of(peers, 2).processRanks());
    }

    @Test
    void duplicateDeviceRefused() {
        List<PeerInfo> peers = List.of(peer(0, 100, 1, 10, "v"), peer(1, 100, 2, 10, "v"));
        NcclUsageException e = assertThrows(NcclUsageException.class, () -> RankLayout.of(peers, 0));
        assertEquals(Result.INVALID_USAGE, e.result());
        assertTrue(e.getMessage().contains("Duplicate device detected: rank 0 and rank 1"), e.getMessage());
        RankLayout.of(List.of(peer(0, 100, 1, 10, "v"), peer(1, 101, 2, 10, "v")), 0); // other host: fine
    }

    @Test
    void versionMismatchListsVersions() {
        List<PeerInfo> peers = List.of(peer(0, 1, 1, 1, "0.1.0"), peer(1, 1, 1, 2, "0.2.0"), peer(2, 1, 1, 3, "0.1.0"));
        NcclUsageException e = assertThrows(NcclUsageException.class, () -> RankLayout.of(peers, 0));
        assertTrue(e.getMessage().contains("0.1.0 on ranks [0, 2]; 0.2.0 on ranks [1]"), e.getMessage());
    }

    @Test
    void peerInfoRoundTrip() {
        PeerInfo p = new PeerInfo(5, 2, true, -1L, 123456789L, 44, 0x3b000, 4242, "host", "0.1.0-SNAPSHOT", "node-é");
        byte[] b = new byte[PeerInfo.BYTES * 2];
        System.arraycopy(p.encode(), 0, b, PeerInfo.BYTES, PeerInfo.BYTES);
        assertEquals(p, PeerInfo.decode(b, PeerInfo.BYTES));
    }
}
