package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;

/** A communicator's own net settings are used even after another communicator initialised a net. */
class PerCommNetSettingsTest {
    private static CommConfig ifname(String value) {
        return CommConfig.builder().param("NCCL_SOCKET_IFNAME", value).build();
    }

    private static void allReduceWorks(List<Communicator> comms) {
        Thread[] ts = new Thread[comms.size()];
        int[][] data = new int[comms.size()][];
        for (int r = 0; r < ts.length; r++) {
            int rank = r;
            data[r] = new int[] {rank + 1, 10 * (rank + 1)};
            ts[r] = Thread.ofPlatform().start(() -> comms.get(rank).allReduce(data[rank], RedOp.SUM));
        }
        for (Thread t : ts) {
            assertTrue(assertDoesNotThrow(() -> t.join(Duration.ofSeconds(30))), "allReduce finished");
        }
        for (int[] d : data) {
            assertArrayEquals(new int[] {3, 30}, d);
        }
    }

    @Test
    void anotherSocketInterfaceIsHonouredNotSilentlyShared() {
        List<Communicator> first = Nccl.commInitAll(2, ifname("lo"));
        try {
            allReduceWorks(first);
            NcclException e = assertThrows(NcclException.class, () -> Nccl.commInitAll(2, ifname("=nccl4j-no-such-if0")));
            assertEquals(Result.INVALID_USAGE, e.result(), e.getMessage());
            assertTrue(e.getMessage().contains("NET/Socket : no interface found"), e.getMessage());
            allReduceWorks(first); // the first communicator's net is untouched
            List<Communicator> again = Nccl.commInitAll(2, ifname("lo"));
            try {
                allReduceWorks(again);
            } finally {
                again.forEach(Communicator::close);
            }
        } finally {
            first.forEach(Communicator::close);
        }
    }
}
