package org.nccl4j;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import org.nccl4j.spi.NcclRuntime;

/**
 * The entry point: NCCL's {@code ncclGetUniqueId}, {@code ncclCommInitRank},
 * {@code ncclCommInitAll} and friends.
 *
 * <pre>{@code
 * UniqueId id = rank == 0 ? Nccl.getUniqueId() : receiveFromRank0();
 * try (Communicator comm = Nccl.commInitRank(nranks, id, rank)) {
 *     ...
 * }
 * }</pre>
 */
public final class Nccl {
    private Nccl() {
    }

    private static final class Holder {
        static final NcclRuntime RUNTIME = load();

        private static NcclRuntime load() {
            return ServiceLoader.load(NcclRuntime.class, Nccl.class.getClassLoader()).findFirst()
                    .or(() -> ServiceLoader.load(NcclRuntime.class).findFirst())
                    .orElseThrow(() -> NcclException.of(Result.INVALID_USAGE,
                            "no nccl4j runtime found on the class path or module path",
                            "add the artifact org.nccl4j:nccl-core (through org.nccl4j:nccl-bom)"));
        }
    }

    private static NcclRuntime runtime() {
        return Holder.RUNTIME;
    }

    /** @return nccl4j's version and the NCCL version it ports ({@code ncclGetVersion}) */
    public static Version version() {
        return runtime().version();
    }

    /**
     * Allocates host memory that the other rank processes of this host can map
     * ({@code ncclMemAlloc}, for host buffers). Collectives between rank JVMs of one host whose
     * buffers come from here read each other's data where it lies instead of copying it through
     * the connection's buffer first (the ring collectives on Simple: one copy less per step). Any
     * other memory works too, with that copy. Ordinary native memory where the OS has no
     * shareable anonymous memory (Linux memfds).
     *
     * <pre>{@code
     * MemorySegment grads = Nccl.memAlloc(arena, 4L * n);
     * comm.allReduce(grads, grads, n, DataType.FLOAT32, RedOp.SUM, stream);
     * }</pre>
     *
     * @param arena owns the memory: closing it frees it ({@code ncclMemFree})
     * @param bytes size, at least 1
     * @return zeroed, page-aligned native memory
     * @throws NcclException INVALID_ARGUMENT for a size below 1; SYSTEM_ERROR when the memory
     *     cannot be had
     */
    public static MemorySegment memAlloc(Arena arena, long bytes) {
        return runtime().memAlloc(arena, bytes);
    }

    /**
     * Starts a bootstrap root in this process and returns the id that names it
     * ({@code ncclGetUniqueId}). With {@code NCCL_COMM_ID} set, no root is started here: rank 0
     * starts it at that address during init.
     *
     * @return the id to share with every rank
     */
    public static UniqueId getUniqueId() {
        return runtime().getUniqueId();
    }

    /**
     * Creates this rank's communicator ({@code ncclCommInitRank}); blocks until every rank has
     * joined or the init deadline passes.
     *
     * @param nranks the number of ranks, at least 1
     * @param id     the id from {@link #getUniqueId()} on one rank
     * @param rank   this rank, 0 to {@code nranks-1}
     * @return the communicator
     * @throws NcclException if init fails; the failure names the step and the peer
     */
    public static Communicator commInitRank(int nranks, UniqueId id, int rank) {
        return commInitRank(nranks, id, rank, CommConfig.defaults());
    }

    /**
     * Creates this rank's communicator with settings ({@code ncclCommInitRankConfig}).
     *
     * @param nranks the number of ranks, at least 1
     * @param id     the id from {@link #getUniqueId()} on one rank
     * @param rank   this rank, 0 to {@code nranks-1}
     * @param config settings for this communicator
     * @return the communicator
     * @throws NcclException if init fails
     */
    public static Communicator commInitRank(int nranks, UniqueId id, int rank, CommConfig config) {
        return runtime().commInitRank(nranks, UniqueId.requireNonNull(id), rank, config(config));
    }

    /**
     * Starts init in the background (NCCL 2.14's non-blocking init, the Java way). The future
     * completes with the communicator, or exceptionally with an {@link NcclException}; it fails
     * with {@link NcclTimeoutException} when the config's init deadline passes, and cancelling it
     * aborts the init.
     *
     * @param nranks the number of ranks, at least 1
     * @param id     the id from {@link #getUniqueId()} on one rank
     * @param rank   this rank, 0 to {@code nranks-1}
     * @param config settings for this communicator, including {@link CommConfig#initTimeout()}
     * @return the future communicator
     */
    public static CompletableFuture<Communicator> commInitRankAsync(int nranks, UniqueId id, int rank,
                                                                     CommConfig config) {
        return runtime().commInitRankAsync(nranks, UniqueId.requireNonNull(id), rank, config(config));
    }

    /**
     * Creates {@code nranks} communicators in this process, one per rank, as threads of this JVM
     * ({@code ncclCommInitAll}).
     *
     * @param nranks the number of ranks, at least 1
     * @return the communicators; index = rank
     */
    public static List<Communicator> commInitAll(int nranks) {
        return commInitAll(nranks, CommConfig.defaults());
    }

    /**
     * Creates {@code nranks} communicators in this process with settings.
     *
     * @param nranks the number of ranks, at least 1
     * @param config settings shared by all of them
     * @return the communicators; index = rank
     */
    public static List<Communicator> commInitAll(int nranks, CommConfig config) {
        return runtime().commInitAll(nranks, config(config));
    }

    /**
     * Creates this process's communicator from a launcher's environment: rank and size from
     * {@code NCCL4J_RANK}/{@code NCCL4J_NRANKS}, torchrun's {@code RANK}/{@code WORLD_SIZE},
     * Open MPI's {@code OMPI_COMM_WORLD_RANK}/{@code OMPI_COMM_WORLD_SIZE}, Slurm's
     * {@code SLURM_PROCID}/{@code SLURM_NTASKS} or PMI's {@code PMI_RANK}/{@code PMI_SIZE}; the
     * root from {@code NCCL_COMM_ID} or {@code MASTER_ADDR}:{@code MASTER_PORT}.
     *
     * @return the communicator
     * @throws NcclUsageException if the environment does not describe a rank
     */
    public static Communicator commInitFromEnv() {
        return commInitFromEnv(CommConfig.defaults());
    }

    /**
     * Like {@link #commInitFromEnv()}, with settings.
     *
     * @param config settings for this communicator
     * @return the communicator
     */
    public static Communicator commInitFromEnv(CommConfig config) {
        return runtime().commInitFromEnv(config(config));
    }

    /**
     * Starts a group ({@code ncclGroupStart}): until the matching {@link #groupEnd()} on this
     * thread, collectives and send/recv are collected instead of launched. Groups nest.
     */
    public static void groupStart() {
        runtime().groupStart();
    }

    /**
     * Ends a group ({@code ncclGroupEnd}); the outermost end launches everything collected, with
     * point-to-point operations scheduled as NCCL does.
     *
     * @throws NcclException the first error of the group; then nothing of it was launched
     */
    public static void groupEnd() {
        runtime().groupEnd();
    }

    /**
     * Starts a group as a try-with-resources scope: {@code try (Group g = Nccl.group()) { ... }}
     * ends it when the block ends, also when the block throws.
     *
     * @return the open group; closing it is {@link #groupEnd()}
     */
    public static Group group() {
        groupStart();
        return new Group();
    }

    /**
     * @param result a result code
     * @return NCCL's text for it ({@code ncclGetErrorString})
     */
    public static String errorString(Result result) {
        return result == null ? "unknown result code" : result.text();
    }

    private static CommConfig config(CommConfig config) {
        if (config == null) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "config is null", "use CommConfig.defaults()");
        }
        return config;
    }
}
