package org.nccl4j.core.comm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;

/**
 * {@code split} and {@code shrink} on ranks as threads: the new communicators' ranks, and their
 * AllReduces' exact sums; shrink by the survivors of a communicator whose rank went away, with
 * the parent already failed; the async-error listener.
 */
class SplitShrinkTest {
    @Test
    void splitFormsOneCommunicatorPerColorRankedByKey() {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () -> {
            List<Communicator> comms = Nccl.commInitAll(5);
            List<Communicator> children = new CopyOnWriteArrayList<>();
            try {
                // Colors by parity, rank 4 in none; keys reverse the order within a color.
                List<Communicator> kids = onEachRank(comms, c -> {
                    int r = c.userRank();
                    return c.split(r == 4 ? Communicator.SPLIT_NOCOLOR : r % 2, -r);
                });
                kids.stream().filter(k -> k != null).forEach(children::add);
                assertNull(kids.get(4), "the rank without a color gets no communicator");
                int[][] expect = {{2, 1}, {2, 1}, {2, 0}, {2, 0}}; // {count, new rank}: 0 and 2 swap, 1 and 3 swap
                for (int r = 0; r < 4; r++) {
                    assertEquals(expect[r][0], kids.get(r).count(), "rank " + r);
                    assertEquals(expect[r][1], kids.get(r).userRank(), "rank " + r);
                }
                // Each color reduces its own ranks' values: 1 + 3 and 2 + 4.
                List<float[]> sums = onEachRank(kids.subList(0, 4), k -> {
                    int parent = kids.indexOf(k);
                    float[] v = new float[1000];
                    Arrays.fill(v, parent + 1);
                    k.allReduce(v, RedOp.SUM);
                    return v;
                });
                for (int r = 0; r < 4; r++) {
                    float[] want = new float[1000];
                    Arrays.fill(want, r % 2 == 0 ? 4f : 6f);
                    assertArrayEquals(want, sums.get(r), "rank " + r);
                }
                // The parent still works after the split.
                List<float[]> parentSums = onEachRank(comms, c -> {
                    float[] v = {c.userRank()};
                    c.allReduce(v, RedOp.SUM);
                    return v;
                });
                parentSums.forEach(v -> assertEquals(10f, v[0]));
            } finally {
                children.forEach(Communicator::close);
                comms.forEach(Communicator::abort);
            }
        });
    }

    @Test
    void survivorsShrinkAFailedCommunicatorAndCarryOn() {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () -> {
            // A peer that aborts tells the ranks waiting on it (REMOTE_ERROR, at once); the op
            // timeout, far away, would say TIMEOUT.
            CommConfig cfg = CommConfig.builder().param("NCCL4J_OP_TIMEOUT_MS", "60000").build();
            List<Communicator> comms = Nccl.commInitAll(3, cfg);
            List<Communicator> children = new CopyOnWriteArrayList<>();
            try {
                List<CompletableFuture<NcclException>> heard = new ArrayList<>();
                List<CompletableFuture<String>> heardOn = new ArrayList<>();
                for (Communicator c : comms.subList(0, 2)) {
                    CompletableFuture<NcclException> f = new CompletableFuture<>();
                    CompletableFuture<String> on = new CompletableFuture<>();
                    c.onAsyncError(e -> {
                        on.complete(Thread.currentThread().getName());
                        f.complete(e);
                    });
                    heard.add(f);
                    heardOn.add(on);
                }
                comms.get(2).abort(); // rank 2 is gone
                List<NcclException> failed = onEachRank(comms.subList(0, 2),
                        c -> assertThrows(NcclException.class, () -> c.allReduce(new float[4096], RedOp.SUM)));
                for (int r = 0; r < 2; r++) {
                    assertEquals(Result.REMOTE_ERROR, failed.get(r).result(), "rank " + r + ": " + failed.get(r));
                    NcclException e = heard.get(r).get(10, TimeUnit.SECONDS);
                    assertEquals(comms.get(r).asyncError(), e.result(), "the listener hears the async error");
                    assertNotEquals("main", heardOn.get(r).get(), "the listener runs on a thread of its own");
                }
                List<Communicator> kids = onEachRank(comms.subList(0, 2), c -> c.shrink(2));
                children.addAll(kids);
                for (int r = 0; r < 2; r++) {
                    assertEquals(2, kids.get(r).count());
                    assertEquals(r, kids.get(r).userRank(), "shrink keeps the survivors' order");
                    assertEquals(Result.SUCCESS, kids.get(r).asyncError());
                }
                List<double[]> sums = onEachRank(kids, k -> {
                    double[] v = new double[100_000];
                    Arrays.fill(v, k.userRank() + 0.5);
                    k.allReduce(v, RedOp.SUM);
                    return v;
                });
                for (double[] v : sums) {
                    double[] want = new double[v.length];
                    Arrays.fill(want, 2.0);
                    assertArrayEquals(want, v);
                }
            } finally {
                children.forEach(Communicator::close);
                comms.forEach(Communicator::abort);
            }
        });
    }

    @Test
    void aHealthyCommunicatorShrinksToo() {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () -> {
            List<Communicator> comms = Nccl.commInitAll(4);
            List<Communicator> children = new CopyOnWriteArrayList<>();
            try {
                List<Communicator> kids = onEachRank(List.of(comms.get(0), comms.get(2), comms.get(3)),
                        c -> c.shrink(1, 1)); // a repeated rank counts once
                children.addAll(kids);
                assertEquals(List.of(0, 1, 2), kids.stream().map(Communicator::userRank).toList());
                List<int[]> sums = onEachRank(kids, k -> {
                    int[] v = {10, k.userRank()};
                    k.allReduce(v, RedOp.SUM);
                    return v;
                });
                sums.forEach(v -> assertArrayEquals(new int[] {30, 3}, v));
                comms.get(1).close();
            } finally {
                children.forEach(Communicator::close);
                comms.forEach(Communicator::abort);
            }
        });
    }

    @Test
    void badArgumentsAreRefusedBeforeAnyExchange() throws Exception {
        List<Communicator> comms = Nccl.commInitAll(2);
        try {
            Communicator c = comms.get(0);
            NcclException e = assertThrows(NcclException.class, () -> c.split(-5, 0));
            assertEquals(Result.INVALID_ARGUMENT, e.result());
            assertTrue(e.getMessage().contains("-5"), e.getMessage());
            e = assertThrows(NcclException.class, () -> c.shrink(0));
            assertEquals(Result.INVALID_ARGUMENT, e.result());
            assertTrue(e.getMessage().contains("excludes itself"), e.getMessage());
            e = assertThrows(NcclException.class, () -> c.shrink(7));
            assertEquals(Result.INVALID_ARGUMENT, e.result());
            assertTrue(e.getMessage().contains("7"), e.getMessage());
            // Nothing was started: both ranks still reduce together.
            List<int[]> sums = onEachRank(comms, k -> {
                int[] v = {k.userRank() + 1};
                k.allReduce(v, RedOp.SUM);
                return v;
            });
            sums.forEach(v -> assertEquals(3, v[0]));
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    @Test
    void aListenerOfACommunicatorClosedWithoutErrorIsNeverCalled() throws Exception {
        List<Communicator> comms = Nccl.commInitAll(2);
        CompletableFuture<NcclException> f = new CompletableFuture<>();
        comms.get(0).onAsyncError(f::complete);
        comms.forEach(Communicator::close);
        Thread.sleep(200);
        assertTrue(!f.isDone(), "called with " + f.getNow(null));
    }

    /** Runs {@code work} on every communicator's own thread at once (collectives block). */
    static <T> List<T> onEachRank(List<Communicator> comms, Function<Communicator, T> work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(comms.size());
        try {
            List<CompletableFuture<T>> fs = comms.stream()
                    .map(c -> CompletableFuture.supplyAsync(() -> work.apply(c), pool)).toList();
            List<T> out = new ArrayList<>();
            for (CompletableFuture<T> f : fs) {
                out.add(f.get(60, TimeUnit.SECONDS));
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }
}
