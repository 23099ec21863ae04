package org.nccl4j.core.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
 * The device-buffer forms on host communicators: {@code allocate} and {@code wrap} give host
 * memory, and the collectives, sends and receives run on it exactly as on MemorySegments, so a
 * program written against device buffers runs on the host backend unchanged.
 */
class DeviceBuffersOnHostTest {
    private static final int N = 3;
    private static final int COUNT = 1009;

    @Test
    void collectivesOnHostDeviceBuffersAreExact() throws Exception {
        List<Communicator> comms = Nccl.commInitAll(N);
        try {
            List<CompletableFuture<Void>> ranks = new ArrayList<>();
            for (Communicator c : comms) {
                ranks.add(CompletableFuture.runAsync(() -> rank(c)));
            }
            for (CompletableFuture<Void> r : ranks) {
                r.get();
            }
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    private static void rank(Communicator c) {
        int r = c.userRank();
        try (Arena arena = Arena.ofConfined();
             DeviceBuffer send = c.allocate(4L * COUNT * N);
             DeviceBuffer recv = c.allocate(4L * COUNT * N)) {
            MemorySegment host = arena.allocate(4L * COUNT * N, 4);
            for (int i = 0; i < COUNT * N; i++) {
                host.setAtIndex(ValueLayout.JAVA_INT, i, (r + 1) * 1000 + i);
            }
            send.copyFrom(host);
            // AllReduce, out of place, then in place on recv.
            c.allReduce(send, recv, COUNT, DataType.INT32, RedOp.SUM, c.defaultStream()).await();
            recv.copyTo(host);
            for (int i = 0; i < COUNT; i++) {
                assertEquals(6000 + 3 * i, host.getAtIndex(ValueLayout.JAVA_INT, i), "allReduce element " + i);
            }
            c.allReduce(recv, recv, COUNT, DataType.INT32, RedOp.MAX, c.defaultStream()).await();
            recv.copyTo(host);
            assertEquals(6000 + 3 * 7, host.getAtIndex(ValueLayout.JAVA_INT, 7));
            // Broadcast from rank 1 into a slice.
            DeviceBuffer slice = recv.slice(4L * COUNT, 4L * COUNT);
            c.broadcast(send, slice, COUNT, DataType.INT32, 1, c.defaultStream()).await();
            recv.copyTo(host);
            for (int i = 0; i < COUNT; i++) {
                assertEquals(2000 + i, host.getAtIndex(ValueLayout.JAVA_INT, COUNT + i), "broadcast element " + i);
            }
            // AllGather of each rank's first COUNT, then ReduceScatter of the whole send buffer.
            c.allGather(send, recv, COUNT, DataType.INT32, c.defaultStream()).await();
            recv.copyTo(host);
            for (int q = 0; q < N; q++) {
                assertEquals((q + 1) * 1000 + 5, host.getAtIndex(ValueLayout.JAVA_INT, q * COUNT + 5));
            }
            c.reduceScatter(send, recv, COUNT, DataType.INT32, RedOp.SUM, c.defaultStream()).await();
            recv.copyTo(host);
            for (int i = 0; i < COUNT; i++) {
                assertEquals(6000 + 3 * (r * COUNT + i), host.getAtIndex(ValueLayout.JAVA_INT, i), "reduceScatter " + i);
            }
            // A ring exchange in a group, then AllToAll.
            int next = (r + 1) % N;
            int prev = (r + N - 1) % N;
            Nccl.groupStart();
            c.send(send, COUNT, DataType.INT32, next, c.defaultStream());
            Completion got = c.recv(recv, COUNT, DataType.INT32, prev, c.defaultStream());
            Nccl.groupEnd();
            got.await();
            recv.copyTo(host);
            assertEquals((prev + 1) * 1000 + 11, host.getAtIndex(ValueLayout.JAVA_INT, 11));
            c.allToAll(send, recv, COUNT, DataType.INT32, c.defaultStream()).await();
            recv.copyTo(host);
            for (int q = 0; q < N; q++) {
                assertEquals((q + 1) * 1000 + r * COUNT + 3, host.getAtIndex(ValueLayout.JAVA_INT, q * COUNT + 3));
            }
        }
    }

    @Test
    void wrappedHostMemoryIsUsedAndBadBuffersAreRefused() {
        List<Communicator> comms = Nccl.commInitAll(1);
        try (Communicator c = comms.get(0); Arena arena = Arena.ofConfined()) {
            MemorySegment mine = arena.allocate(64, 8);
            mine.setAtIndex(ValueLayout.JAVA_FLOAT, 0, 2.5f);
            DeviceBuffer wrapped = c.wrap(mine.address(), 64);
            c.allReduce(wrapped, wrapped, 16, DataType.FLOAT32, RedOp.SUM, c.defaultStream()).await();
            assertEquals(2.5f, mine.getAtIndex(ValueLayout.JAVA_FLOAT, 0));

            NcclException shortBuf = assertThrows(NcclException.class,
                    () -> c.allReduce(wrapped, wrapped, 17, DataType.FLOAT32, RedOp.SUM, c.defaultStream()));
            assertEquals(Result.INVALID_ARGUMENT, shortBuf.result());
            assertTrue(shortBuf.getMessage().contains("holds 64 bytes but the call needs 68"), shortBuf.getMessage());
            NcclException nullBuf = assertThrows(NcclException.class,
                    () -> c.allReduce((DeviceBuffer) null, wrapped, 1, DataType.FLOAT32, RedOp.SUM, c.defaultStream()));
            assertTrue(nullBuf.getMessage().contains("sendbuff is null"), nullBuf.getMessage());
            DeviceBuffer freed = c.allocate(64);
            freed.close();
            NcclException closed = assertThrows(NcclException.class,
                    () -> c.allReduce(freed, wrapped, 1, DataType.FLOAT32, RedOp.SUM, c.defaultStream()));
            assertTrue(closed.getMessage().contains("was freed"), closed.getMessage());
            NcclException stream = assertThrows(NcclException.class, () -> c.wrapStream(1));
            assertEquals(Result.INVALID_USAGE, stream.result());
            assertTrue(stream.getMessage().contains("no native streams"), stream.getMessage());
            assertEquals(Result.INVALID_ARGUMENT, assertThrows(NcclException.class, () -> c.allocate(0)).result());
            assertEquals(Result.INVALID_ARGUMENT, assertThrows(NcclException.class, () -> c.wrap(0, 8)).result());
            assertEquals(0, c.defaultStream().handle());
        }
    }
}
