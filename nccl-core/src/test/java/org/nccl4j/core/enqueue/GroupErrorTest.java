package org.nccl4j.core.enqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.nccl4j.Communicator;
import org.nccl4j.Completion;
import org.nccl4j.DataType;
import org.nccl4j.Group;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/** NCCL's group error contract: the first refused call is groupEnd's error and nothing of the group runs. */
class GroupErrorTest {
    private static final int COUNT = 1024;
    private static final int SENTINEL = -7;

    @Test
    void aRefusedCallFailsTheWholeGroupAndTheCommunicatorsStayUsable() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            List<Communicator> comms = Nccl.commInitAll(2);
            try (Arena arena = Arena.ofShared()) {
                List<CompletableFuture<Void>> ranks = List.of(0, 1).stream()
                        .map(r -> CompletableFuture.runAsync(() -> rank(comms.get(r), arena), t -> new Thread(t, "rank " + r).start()))
                        .toList();
                ranks.forEach(CompletableFuture::join);
            } finally {
                comms.forEach(Communicator::close);
            }
        });
    }

    private static void rank(Communicator c, Arena arena) {
        int r = c.userRank();
        int peer = 1 - r;
        MemorySegment groupSend = filled(arena, 100 + r);
        MemorySegment groupRecv = filled(arena, SENTINEL);
        Nccl.groupStart();
        Completion sent = c.send(groupSend, COUNT, DataType.INT32, peer, c.defaultStream());
        Completion received = c.recv(groupRecv, COUNT, DataType.INT32, peer, c.defaultStream());
        NcclException refused = assertThrows(NcclException.class,
                () -> c.recv(groupRecv, COUNT, DataType.INT32, 7, c.defaultStream()));
        assertEquals(Result.INVALID_ARGUMENT, refused.result());
        NcclException atEnd = assertThrows(NcclException.class, Nccl::groupEnd, "rank " + r);
        assertEquals(refused, atEnd, "groupEnd returns the group's first error");
        assertTrue(atEnd.getMessage().contains("invalid peer 7"), atEnd.getMessage());
        assertEquals(Result.INVALID_ARGUMENT, assertThrows(NcclException.class, sent::await).result());
        assertEquals(Result.INVALID_ARGUMENT, assertThrows(NcclException.class, received::await).result());

        MemorySegment send = filled(arena, 200 + r);
        MemorySegment recv = filled(arena, SENTINEL);
        Completion fresh;
        try (Group g = Nccl.group()) { // the same group as a try-with-resources scope
            c.send(send, COUNT, DataType.INT32, peer, c.defaultStream());
            fresh = c.recv(recv, COUNT, DataType.INT32, peer, c.defaultStream());
        }
        fresh.await();
        for (int i = 0; i < COUNT; i++) {
            assertEquals(200 + peer, recv.getAtIndex(ValueLayout.JAVA_INT, i), "rank " + r + " element " + i);
            assertEquals(SENTINEL, groupRecv.getAtIndex(ValueLayout.JAVA_INT, i), "the failed group received nothing");
        }
    }

    private static MemorySegment filled(Arena arena, int value) {
        MemorySegment s = arena.allocate((long) COUNT * Integer.BYTES);
        for (int i = 0; i < COUNT; i++) {
            s.setAtIndex(ValueLayout.JAVA_INT, i, value);
        }
        return s;
    }
}
