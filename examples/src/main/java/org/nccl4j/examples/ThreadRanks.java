package org.nccl4j.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.ToIntFunction;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;

/** Runs a per-rank job on N ranks that are threads of this JVM ({@code --threads N}). */
final class ThreadRanks {
    private ThreadRanks() {
    }

    /**
     * Initialises N communicators with {@code commInitAll}, runs {@code job} on each in its own
     * thread, and destroys them. If one rank fails, the others are aborted so none waits forever
     * for it.
     *
     * @param n      number of ranks
     * @param config communicator config
     * @param job    what a rank runs; returns its exit code
     * @return the largest exit code
     * @throws RuntimeException the first rank's failure
     */
    static int run(int n, CommConfig config, ToIntFunction<Communicator> job) {
        List<Communicator> comms = Nccl.commInitAll(n, config);
        ExecutorService pool = Executors.newFixedThreadPool(n, r -> Thread.ofPlatform().name("rank").unstarted(r));
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (Communicator c : comms) {
                results.add(pool.submit(() -> {
                    try {
                        return job.applyAsInt(c);
                    } catch (RuntimeException e) {
                        comms.forEach(Communicator::abort); // release the ranks waiting for this one
                        throw e;
                    }
                }));
            }
            int code = 0;
            for (Future<Integer> f : results) {
                code = Math.max(code, f.get());
            }
            return code;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException re ? re : new IllegalStateException(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            comms.forEach(Communicator::abort);
            return 1;
        } finally {
            pool.shutdown();
            comms.forEach(Communicator::close);
        }
    }
}
