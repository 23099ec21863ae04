package org.nccl4j.core.init;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.NcclTimeoutException;
import org.nccl4j.NcclUsageException;
import org.nccl4j.Result;
import org.nccl4j.UniqueId;
import org.nccl4j.core.CoreRuntime;
import org.nccl4j.core.testkit.ProcessResources;

/** Communicator init in one JVM (ranks as threads), through the public API. */
class CommInitTest {
    private static final CommConfig SHORT = CommConfig.builder().initTimeout(Duration.ofSeconds(3)).build();

    @Test
    void initAllAndDestroy() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            for (int n : new int[] {1, 2, 3, 4, 8}) {
                List<Communicator> comms = Nccl.commInitAll(n);
                for (int r = 0; r < n; r++) {
                    assertEquals(r, comms.get(r).userRank());
                    assertEquals(n, comms.get(r).count());
                    assertEquals(1, comms.get(r).nodeCount());
                    assertEquals(Result.SUCCESS, comms.get(r).asyncError());
                }
                comms.forEach(Communicator::close);
                comms.forEach(Communicator::close); // idempotent
                assertThrows(NcclUsageException.class, () -> comms.get(0).count());
            }
        });
    }

    @Test
    void invalidArguments() {
        UniqueId id = Nccl.getUniqueId();
        NcclException e = assertThrows(NcclUsageException.class, () -> Nccl.commInitRank(0, id, 0));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        e = assertThrows(NcclUsageException.class, () -> Nccl.commInitRank(2, id, 2));
        assertTrue(e.getMessage().contains("rank 2 is invalid for nranks 2"), e.getMessage());
        assertThrows(NcclUsageException.class, () -> Nccl.commInitRank(2, id, -1));
        e = assertThrows(NcclUsageException.class, () -> Nccl.commInitRank(2, null, 0));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        assertThrows(NcclUsageException.class, () -> Nccl.commInitAll(0));
    }

    @Test
    void foreignAndCorruptIdsAreRefused() {
        byte[] foreign = new byte[UniqueId.BYTES];
        foreign[0] = 2; // a C NCCL 2.10 id: sockaddr_in, no magic
        NcclException e = assertThrows(NcclUsageException.class,
                () -> Nccl.commInitRank(1, UniqueId.fromBytes(foreign), 0, SHORT));
        assertTrue(e.getMessage().toLowerCase().contains("unique id"), e.getMessage());
        byte[] corrupt = Nccl.getUniqueId().toBytes();
        corrupt[40] ^= 0x5a;
        assertThrows(NcclException.class, () -> Nccl.commInitRank(1, UniqueId.fromBytes(corrupt), 0, SHORT));
        assertThrows(NcclUsageException.class, () -> UniqueId.parse("zz"));
        assertThrows(NcclUsageException.class, () -> UniqueId.fromBytes(new byte[5]));
    }

    @Test
    void printableIdRoundTrips() {
        UniqueId id = Nccl.getUniqueId();
        assertEquals(id, UniqueId.parse(id.toString()));
        assertEquals(256, id.toString().length());
    }

    @Test
    void missingRankTimesOutNamingIt() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            UniqueId id = Nccl.getUniqueId();
            CompletableFuture<Communicator> r0 = Nccl.commInitRankAsync(2, id, 0, SHORT);
            ExecutionException e = assertThrows(ExecutionException.class, r0::get);
            NcclTimeoutException t = assertInstanceOf(NcclTimeoutException.class, e.getCause());
            assertTrue(t.getMessage().contains("1"), t.getMessage());
        });
    }

    @Test
    void cancellingAsyncInitReleasesItsPortsAndThreadsWithinOneSecond() throws Exception {
        UniqueId id = Nccl.getUniqueId();
        Set<Integer> ports = ProcessResources.listeningPorts();
        Set<String> threads = ProcessResources.ncclThreads();
        CompletableFuture<Communicator> r0 = Nccl.commInitRankAsync(2, id, 0,
                CommConfig.builder().initTimeout(Duration.ofSeconds(60)).build());
        // Rank 0 is inside bootstrap: its listener is open and it waits for rank 1, who never comes.
        Set<Integer> during = ProcessResources.listeningPorts();
        for (int i = 0; i < 500 && during.equals(ports); i++) {
            Thread.sleep(10);
            during = ProcessResources.listeningPorts();
        }
        assertNotEquals(ports, during, "init never opened its bootstrap listener");
        assertTrue(ProcessResources.ncclThreads().contains("nccl4j-init-rank-0"));

        assertTrue(r0.cancel(true));
        assertEquals(ports, ProcessResources.awaitEqual(ports, ProcessResources::listeningPorts, 1000));
        assertEquals(threads, ProcessResources.awaitEqual(threads, ProcessResources::ncclThreads, 1000));
        assertThrows(CancellationException.class, r0::join);
    }

    @Test
    void initAllFailingOnOneRankAbortsTheOthersAndReportsTheRealError() throws Exception {
        Set<Integer> ports = ProcessResources.listeningPorts();
        Set<String> threads = ProcessResources.ncclThreads();
        CommConfig good = CommConfig.builder().initTimeout(Duration.ofSeconds(60)).build();
        // Rank 2 fails its own checks before it reaches the root: ranks 0 and 1 (started before it)
        // and 3 wait for it there until cancelled.
        CommConfig bad = CommConfig.builder().param("NCCL4J_INIT_TIMEOUT_MS", "-1").build();
        long start = System.nanoTime();
        NcclException e = assertThrows(NcclException.class,
                () -> CoreRuntime.initAll(4, r -> r == 2 ? bad : good));
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(Result.INVALID_ARGUMENT, e.result(), e.getMessage());
        assertTrue(e.getMessage().contains("NCCL4J_INIT_TIMEOUT_MS=-1"), e.getMessage());
        assertTrue(tookMs < 20_000, "the other ranks waited for their deadline: " + tookMs + " ms");
        assertEquals(threads, ProcessResources.awaitEqual(threads, ProcessResources::ncclThreads, 1000));
        // The root of the id lives on until its own deadline; the ranks' listeners are gone.
        Set<Integer> after = ProcessResources.awaitEqual(ports, ProcessResources::listeningPorts, 1000);
        assertTrue(after.size() <= ports.size() + 1, "rank listeners left open: " + after + " vs " + ports);
    }

    @Test
    void abortIsIdempotentFromAnyThread() throws Exception {
        List<Communicator> comms = Nccl.commInitAll(2);
        Thread t = new Thread(() -> comms.get(0).abort());
        t.start();
        t.join(5000);
        comms.get(0).abort();
        comms.get(0).close();
        comms.get(1).close();
    }
}
