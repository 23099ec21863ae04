package org.nccl4j.core.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.nccl4j.Communicator;
import org.nccl4j.DataType;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;

/** A host communicator has no device memory or native streams: the device forms refuse, naming the backend. */
class DeviceBuffersOnHostTest {
    @Test
    void deviceFormsAreRefusedOnTheHostBackend() {
        List<Communicator> comms = Nccl.commInitAll(1);
        try (Communicator c = comms.get(0)) {
            NcclException alloc = assertThrows(NcclException.class, () -> c.allocate(64));
            assertEquals(Result.INVALID_USAGE, alloc.result());
            assertTrue(alloc.getMessage().contains("the host device has no device memory"), alloc.getMessage());
            NcclException wrap = assertThrows(NcclException.class, () -> c.wrap(0x1000, 64));
            assertEquals(Result.INVALID_USAGE, wrap.result());
            NcclException stream = assertThrows(NcclException.class, () -> c.wrapStream(1));
            assertEquals(Result.INVALID_USAGE, stream.result());
            assertTrue(stream.getMessage().contains("no native streams"), stream.getMessage());
            NcclException coll = assertThrows(NcclException.class, () -> c.allReduce((DeviceBuffer) null,
                    (DeviceBuffer) null, 1, DataType.FLOAT32, RedOp.SUM, c.defaultStream()));
            assertEquals(Result.INVALID_USAGE, coll.result());
            assertTrue(coll.getMessage().contains("DeviceBuffers passed to a communicator of the host backend"),
                    coll.getMessage());
            assertEquals(0, c.defaultStream().handle());
        }
    }
}
