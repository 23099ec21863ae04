package org.nccl4j.spi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.UniqueId;
import org.nccl4j.Version;

/**
 * The implementation behind {@link org.nccl4j.Nccl}, found with {@link java.util.ServiceLoader}.
 * {@code nccl-core} provides one; applications do not call this interface directly.
 */
public interface NcclRuntime {
    /** @return versions of the implementation */
    Version version();

    /** @return a fresh unique id naming a bootstrap root started by this process */
    UniqueId getUniqueId();

    /**
     * @param nranks number of ranks
     * @param id     the unique id shared by all ranks
     * @param rank   this rank
     * @param config settings
     * @return the communicator
     */
    Communicator commInitRank(int nranks, UniqueId id, int rank, CommConfig config);

    /**
     * @param nranks number of ranks
     * @param id     the unique id shared by all ranks
     * @param rank   this rank
     * @param config settings, including the deadline
     * @return a future completed with the communicator or the failure
     */
    CompletableFuture<Communicator> commInitRankAsync(int nranks, UniqueId id, int rank, CommConfig config);

    /**
     * @param nranks number of ranks, all in this process
     * @param config settings
     * @return the communicators, index = rank
     */
    List<Communicator> commInitAll(int nranks, CommConfig config);

    /**
     * @param config settings
     * @return the communicator of this process's rank, as described by launcher variables
     */
    Communicator commInitFromEnv(CommConfig config);

    /**
     * @param arena owns the memory
     * @param bytes size, at least 1
     * @return host memory the rank processes of this host can map ({@link org.nccl4j.Nccl#memAlloc})
     */
    MemorySegment memAlloc(Arena arena, long bytes);

    /** Starts a group on the calling thread. */
    void groupStart();

    /** Ends a group on the calling thread, launching it if it is the outermost. */
    void groupEnd();
}
