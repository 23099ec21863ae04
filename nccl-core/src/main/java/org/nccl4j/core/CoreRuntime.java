package org.nccl4j.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.UniqueId;
import org.nccl4j.Version;
import org.nccl4j.core.comm.CoreCommunicator;
import org.nccl4j.core.init.CommInit;
import org.nccl4j.core.launch.LaunchEnv;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.spi.NcclRuntime;

/** nccl-core's implementation of {@link org.nccl4j.Nccl}. */
public final class CoreRuntime implements NcclRuntime {
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
        AbortFlag abort = new AbortFlag();
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
        long ms = CommInit.initTimeout(Config.global().with(config), config).toMillis();
        // The deadline inside init fires first with a precise message; this one is the backstop.
        future.orTimeout(ms + 1000, TimeUnit.MILLISECONDS).whenComplete((c, e) -> {
            if (e != null) {
                abort.set(future.isCancelled() ? "init cancelled" : "init failed: " + e);
                t.interrupt();
            }
        });
        return future.exceptionallyCompose(e -> CompletableFuture.failedFuture(unwrap(e, rank, ms)));
    }

    private static Throwable unwrap(Throwable e, int rank, long ms) {
        Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (c instanceof java.util.concurrent.TimeoutException) {
            return NcclException.of(Result.TIMEOUT, "init of rank " + rank + " did not complete within " + ms + " ms",
                    "check that every rank started and can reach the root; raise NCCL4J_INIT_TIMEOUT_MS", c);
        }
        return c;
    }

    @Override
    public List<Communicator> commInitAll(int nranks, CommConfig config) {
        if (nranks < 1) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "nranks " + nranks + " is invalid", "nranks must be at least 1");
        }
        UniqueId id = getUniqueId();
        List<CompletableFuture<Communicator>> futures = new ArrayList<>();
        for (int r = 0; r < nranks; r++) {
            futures.add(commInitRankAsync(nranks, id, r, config));
        }
        List<Communicator> comms = new ArrayList<>();
        NcclException failure = null;
        for (CompletableFuture<Communicator> f : futures) {
            try {
                comms.add(f.join());
            } catch (CompletionException e) {
                if (failure == null) {
                    failure = e.getCause() instanceof NcclException n ? n
                            : NcclException.of(Result.INTERNAL_ERROR, "commInitAll failed: " + e.getCause(), null, e.getCause());
                    futures.forEach(x -> x.cancel(true));
                }
            }
        }
        if (failure != null) {
            comms.forEach(Communicator::abort);
            throw failure;
        }
        return comms;
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
    public void groupStart() {
        org.nccl4j.core.enqueue.Enqueue.groupStart();
    }

    @Override
    public void groupEnd() {
        org.nccl4j.core.enqueue.Enqueue.groupEnd();
    }
}
