package org.nccl4j.core.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nccl4j.Communicator;
import org.nccl4j.Completion;
import org.nccl4j.DataType;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;

/**
 * Send, Recv and AllToAll of device buffers on host communicators: a missing buffer is refused
 * naming it, and inside a group the refusal fails the whole group, so the group's other calls
 * never run (the calls themselves: {@code DeviceBuffersOnHostTest}).
 */
class DeviceP2pOnHostTest {
    @Test
    void nullDeviceBuffersAreRefusedNamingThem() {
        List<Communicator> comms = Nccl.commInitAll(1);
        try (Communicator c = comms.get(0)) {
            for (org.junit.jupiter.api.function.Executable call : List.<org.junit.jupiter.api.function.Executable>of(
                    () -> c.send((DeviceBuffer) null, 1, DataType.FLOAT32, 0, c.defaultStream()),
                    () -> c.recv((DeviceBuffer) null, 1, DataType.FLOAT32, 0, c.defaultStream()),
                    () -> c.allToAll((DeviceBuffer) null, (DeviceBuffer) null, 1, DataType.FLOAT32, c.defaultStream()))) {
                NcclException e = assertThrows(NcclException.class, call);
                assertEquals(Result.INVALID_ARGUMENT, e.result());
                assertTrue(e.getMessage().matches("(?s).*(send|recv)buff is null.*"), e.getMessage());
            }
        }
    }

    @Test
    void aRefusedDeviceCallFailsItsGroupAndNothingOfItRuns() {
        List<Communicator> comms = Nccl.commInitAll(2);
        try {
            float[] a = {1, 2, 3};
            float[] b = {10, 20, 30};
            MemorySegment sa = MemorySegment.ofArray(a);
            MemorySegment sb = MemorySegment.ofArray(b);
            Nccl.groupStart();
            Completion ca = comms.get(0).allReduce(sa, sa, 3, DataType.FLOAT32, RedOp.SUM, comms.get(0).defaultStream());
            Completion cb = comms.get(1).allReduce(sb, sb, 3, DataType.FLOAT32, RedOp.SUM, comms.get(1).defaultStream());
            NcclException refused = assertThrows(NcclException.class,
                    () -> comms.get(1).send((DeviceBuffer) null, 3, DataType.FLOAT32, 0, comms.get(1).defaultStream()));
            NcclException end = assertThrows(NcclException.class, Nccl::groupEnd);
            assertSame(refused, end);
            assertThrows(NcclException.class, ca::await);
            assertThrows(NcclException.class, cb::await);
            comms.get(0).defaultStream().synchronize();
            comms.get(1).defaultStream().synchronize();
            assertEquals(1f, a[0]);
            assertEquals(10f, b[0]);
            // The group state was reset: the next group runs.
            Nccl.groupStart();
            ca = comms.get(0).allReduce(sa, sa, 3, DataType.FLOAT32, RedOp.SUM, comms.get(0).defaultStream());
            cb = comms.get(1).allReduce(sb, sb, 3, DataType.FLOAT32, RedOp.SUM, comms.get(1).defaultStream());
            Nccl.groupEnd();
            assertTrue(ca.await(Duration.ofSeconds(10)));
            assertTrue(cb.await(Duration.ofSeconds(10)));
            assertEquals(11f, a[0]);
            assertEquals(33f, b[2]);
        } finally {
            comms.forEach(Communicator::close);
        }
    }
}
