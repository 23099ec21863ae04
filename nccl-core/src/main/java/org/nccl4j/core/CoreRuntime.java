package org.nccl4j.core;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.nccl4j.core.shm.SharedMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.UniqueId;
import org.nccl4j.Version;
import org.nccl4j.core.comm.CoreCommunicator;
import org.nccl4j.core.bootstrap.BootstrapAuth;
import org.nccl4j.core.init.CommInit;
import org.nccl4j.core.launch.LaunchEnv;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.Threads;
import org.nccl4j.spi.NcclRuntime;
import org.nccl4j.core.version.Nccl4jVersion;

/** nccl-core's implementation of {@link org.nccl4j.Nccl}. */
public final class CoreRuntime implements NcclRuntime {
    /** How long a cancelled init may take to release its sockets and threads. */
    private static final long CANCEL_RELEASE_MILLIS = 5_000;

    @Override
    public Version version() {
        return new Version(Nccl4jVersion.VERSION, Nccl4jVersion.NCCL_CODE);
    }

    @Override
    public UniqueId getUniqueId() {
        return CommInit.newUniqueId(Config.global());
    }

    @Override
    public Communicator commInitRank(int nranks, UniqueId id, int rank, CommConfig config) {
        return CommInit.initRank(nranks, id, rank, config, new AbortFlag());
    }

    @Override
    public CompletableFuture<Communicator> commInitRankAsync(int nranks, UniqueId id, int rank, CommConfig config) {
        return initAsync(nranks, id, rank, config).future();
    }

    /** An init running on its own thread ({@code null} if it failed before starting one). */
    private record Init(CompletableFuture<Communicator> future, Thread thread) {
    }

    /**
     * Init on its own thread. The returned future is the init itself, not a dependent stage, so
     * {@code cancel} (or the backstop deadline) sets the init's abort flag: its waits end, its
     * sockets close and its thread exits within milliseconds.
     */
    private static Init initAsync(int nranks, UniqueId id, int rank, CommConfig config) {
        AbortFlag abort = new AbortFlag();
        long ms;
        try {
            ms = CommInit.initTimeout(Config.global().with(config), config).toMillis();
        } catch (NcclException e) {
            return new Init(CompletableFuture.failedFuture(e), null);
        }
        CompletableFuture<Communicator> future = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().daemon().name("nccl4j-init-rank-" + rank).start(() -> {
            try {
                CoreCommunicator comm = CommInit.initRank(nranks, id, rank, config, abort);
                if (!future.complete(comm)) {
                    comm.abort(); // cancelled or timed out meanwhile
                }
            } catch (Throwable e) {
                future.completeExceptionally(e);
            }
        });
        // The deadline inside init fires first with a precise message; this one is the backstop.
        CompletableFuture<Void> backstop = new CompletableFuture<Void>().orTimeout(ms + 1000, TimeUnit.MILLISECONDS);
        backstop.exceptionally(e -> {
            if (e instanceof TimeoutException) {
                future.completeExceptionally(NcclException.of(Result.TIMEOUT, "init of rank " + rank
                        + " did not complete within " + ms + " ms",
                        "check that every rank started and can reach the root; raise NCCL4J_INIT_TIMEOUT_MS", e));
            }
            return null;
        });
        future.whenComplete((c, e) -> {
            backstop.cancel(false);
            if (e != null) {
                abort.set(future.isCancelled() ? "init cancelled" : "init failed: " + e.getMessage());
                t.interrupt();
            }
        });
        return new Init(future, t);
    }

    @Override
    public List<Communicator> commInitAll(int nranks, CommConfig config) {
        return initAll(nranks, r -> config);
    }

    /**
     * {@code ncclCommInitAll} with a config per rank. The first failure cancels the other ranks'
     * inits at once (each then aborts and releases what it built) and is what the caller gets;
     * communicators that completed are aborted.
     *
     * @param nranks   number of ranks
     * @param configOf rank → its settings
     * @return the communicators, index = rank
     * @throws NcclException the first rank's failure, with its own result code
     */
    public static List<Communicator> initAll(int nranks, IntFunction<CommConfig> configOf) {
        if (nranks < 1) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "nranks " + nranks + " is invalid", "nranks must be at least 1");
        }
        // The root listens where this process's settings say, and authenticates with the ranks' key.
        CommInit.RootedId rooted = CommInit.newRootedId(Config.global(),
                BootstrapAuth.of(Config.global().with(configOf.apply(0))));
        UniqueId id = rooted.id();
        // Written here, read by completion callbacks on init threads.
        List<CompletableFuture<Communicator>> futures = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        AtomicReference<Throwable> first = new AtomicReference<>();
        for (int r = 0; r < nranks && first.get() == null; r++) {
            Init init = initAsync(nranks, id, r, configOf.apply(r));
            CompletableFuture<Communicator> f = init.future();
            futures.add(f);
            threads.add(init.thread());
            f.whenComplete((c, e) -> {
                if (e != null && !(e instanceof CancellationException) && first.compareAndSet(null, e)) {
                    futures.forEach(x -> x.cancel(true));
                }
            });
        }
        if (first.get() != null) {
            futures.forEach(x -> x.cancel(true)); // ranks started before a failure seen in the loop
        }
        List<Communicator> comms = new ArrayList<>();
        for (CompletableFuture<Communicator> f : futures) {
            try {
                comms.add(f.join());
            } catch (CompletionException | CancellationException e) {
                // the failure is in first; keep waiting so no init outlives this call
            }
        }
        Throwable failure = first.get();
        if (failure == null) {
            return comms;
        }
        comms.forEach(Communicator::abort);
        if (rooted.root() != null) {
            rooted.root().close(); // the ranks that were to check in are gone
        }
        // A cancelled init releases what it built on its own thread: let it finish first.
        threads.stream().filter(Objects::nonNull).forEach(t -> Threads.join(t, CANCEL_RELEASE_MILLIS));
        // The futures are the inits themselves, so failure is what the init threw, not a wrapper.
        if (failure instanceof NcclException n) {
            throw NcclException.of(n.result(), "commInitAll: " + n.detail(), n.hint(), n);
        }
        if (failure instanceof Error err) {
            throw err;
        }
        throw NcclException.of(Result.INTERNAL_ERROR, "commInitAll failed: " + failure, null, failure);
    }

    @Override
    public Communicator commInitFromEnv(CommConfig config) {
        Config c = Config.global().with(config);
        LaunchEnv env = LaunchEnv.detect(System.getenv(), c.string(Params.COMM_ID));
        UniqueId id = env.uniqueId() != null ? UniqueId.parse(env.uniqueId())
                : org.nccl4j.core.bootstrap.BootstrapId.fromCommId(env.root()).toUniqueId();
        return CommInit.initRank(env.nranks(), id, env.rank(), config, new AbortFlag());
    }

    @Override
    public MemorySegment memAlloc(Arena arena, long bytes) {
        return SharedMemory.allocate(arena, bytes);
    }

    @Override
    public void groupStart() {
        org.nccl4j.core.enqueue.Enqueue.groupStart();
    }

    @Override
    public void groupEnd() {
        org.nccl4j.core.enqueue.Enqueue.groupEnd();
    }
}
