package org.nccl4j.core.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.proto.Protocol;

/**
 * In-process connections: a Simple step posted from the sender's native memory is read by the
 * receiver at that memory (read-only), its slot left untouched; heap memory and
 * {@code NCCL_P2P_DIRECT_DISABLE=1} leave the step to the slot.
 */
class InProcessTransportTest {
    private static final long PID = ProcessHandle.current().pid();
    private static final int BUFF = 1 << 16;

    private record Pair(Conn send, Conn recv) {
    }

    private static Pair connect(Arena arena, Config config) {
        List<PeerInfo> peers = List.of(StepKit.peer(0, 7, 100, PID), StepKit.peer(1, 7, 100, PID));
        TransportContext c0 = StepKit.ctx(0, peers, 1, config, BUFF, arena, null, null, null);
        TransportContext c1 = StepKit.ctx(1, peers, 1, config, BUFF, arena, null, null, null);
        InProcessTransport t = new InProcessTransport();
        assertTrue(t.canConnect(c0, 1));
        Transport.Setup recv = t.setupRecv(c0, 0, 1);
        Transport.Setup send = t.setupSend(c1, 0, 0);
        return new Pair(t.connectSend(c1, send, recv.info()), t.connectRecv(c0, recv, send.info()));
    }

    @Test
    void aStepPostedFromNativeMemoryIsReadThereAndItsSlotStaysUntouched() {
        try (Arena arena = Arena.ofShared()) {
            Pair p = connect(arena, StepKit.config(Map.of()));
            assertTrue(p.send().sendsInPlace());
            MemorySegment data = arena.allocate(4096);
            for (int i = 0; i < 4096; i++) {
                data.set(ValueLayout.JAVA_BYTE, i, StepKit.pattern(0, i));
            }
            assertTrue(p.send().postInPlace(0, data, 100, 1000));
            p.send().postSend(0, Protocol.SIMPLE, 1000);
            p.send().publish(1);
            MemorySegment at = p.recv().inPlaceData(0);
            long off = p.recv().inPlaceOffset(0);
            assertEquals(data.address() + 100, at.address() + off);
            assertEquals(-1, MemorySegment.mismatch(at, off, off + 1000, data, 100, 1100), "the bytes read in place");
            assertTrue(at.isReadOnly());
            assertThrows(IllegalArgumentException.class, () -> at.set(ValueLayout.JAVA_BYTE, off, (byte) 1));
            MemorySegment slots = p.recv().buff(Protocol.SIMPLE);
            assertEquals(-1, slots.mismatch(arena.allocate(slots.byteSize())), "the slot was written");

            // Heap memory has no address to read: the step goes to its slot.
            assertFalse(p.send().postInPlace(1, MemorySegment.ofArray(new byte[64]), 0, 64));
            p.send().postInSlot(1);
            p.send().postSend(1, Protocol.SIMPLE, 64);
            p.send().publish(2);
            assertNull(p.recv().inPlaceData(1));
            p.send().close();
            p.recv().close();
        }
    }

    @Test
    void p2pDirectDisableLeavesEveryStepToTheSlots() {
        try (Arena arena = Arena.ofShared()) {
            Pair p = connect(arena, StepKit.config(Map.of("NCCL_P2P_DIRECT_DISABLE", "1")));
            assertFalse(p.send().sendsInPlace());
            assertFalse(p.send().postInPlace(0, arena.allocate(64), 0, 64));
            p.send().postInSlot(0);
            p.send().postSend(0, Protocol.SIMPLE, 64);
            p.send().publish(1);
            assertNull(p.recv().inPlaceData(0));
            assertFalse(ConnMem.inPlaceOk(p.send().publishHeader()));
            p.send().close();
            p.recv().close();
        }
    }
}
