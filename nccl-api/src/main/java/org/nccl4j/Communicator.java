package org.nccl4j;

import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * One rank's handle on a communicator ({@code ncclComm_t}).
 *
 * <p>Created by {@link Nccl#commInitRank}, {@link Nccl#commInitAll} or
 * {@link Nccl#commInitFromEnv}. {@link #close()} destroys it ({@code ncclCommDestroy});
 * {@link #abort()} tears it down at once from any thread ({@code ncclCommAbort}). Both are
 * bounded in time and idempotent.
 *
 * <p>Collectives follow NCCL's signatures: buffers are {@link MemorySegment}s (native, mapped or
 * heap: {@code MemorySegment.ofArray(float[])}, {@code MemorySegment.ofBuffer(ByteBuffer)}),
 * counts are in elements, every rank calls the same collectives in the same order. The
 * {@link Stream} forms enqueue and return at once; the forms without a stream use the
 * {@link #defaultStream()} and wait. AllGather's {@code sendcount} and ReduceScatter's
 * {@code recvcount} are per rank, as in NCCL. Inside {@link Nccl#groupStart()} /
 * {@link Nccl#groupEnd()} operations are collected and launched together at the end.
 */
public interface Communicator extends AutoCloseable {
    /** The color of a rank that takes no part in the communicators a {@link #split} makes ({@code NCCL_SPLIT_NOCOLOR}). */
    int SPLIT_NOCOLOR = -1;

    /** @return the number of ranks ({@code ncclCommCount}) */
    int count();

    /** @return this rank's index, 0 to {@code count()-1} ({@code ncclCommUserRank}) */
    int userRank();

    /** @return the device this rank runs on ({@code ncclCommCuDevice}) */
    Device device();

    /** @return the number of distinct hosts among the ranks */
    int nodeCount();

    /** @return the name of the network plugin chosen by initNet, e.g. {@code "Socket"} */
    String netName();

    /**
     * @return {@link Result#SUCCESS}, or the error a background thread of this communicator hit
     *     ({@code ncclCommGetAsyncError})
     */
    Result asyncError();

    /**
     * Calls {@code listener} once with this communicator's first background error (a peer gone, a
     * timeout, a network failure: what {@link #asyncError()} reports), on a thread of its own, so
     * a training loop learns of a failure without polling and may {@link #abort()} or
     * {@link #shrink} from the listener. Called at once (on such a thread) if the error already
     * happened; never called after {@link #close()} or {@link #abort()} without an error.
     *
     * @param listener what to call
     */
    void onAsyncError(Consumer<? super NcclException> listener);

    /**
     * Splits this communicator ({@code ncclCommSplit}): every rank calls it with a color and a key;
     * the ranks of one color form a new communicator, ranked by key (ties by their rank here).
     * A collective over all ranks of this communicator, which must be healthy; no unique id is
     * needed. This communicator stays usable and is closed separately.
     *
     * @param color a non-negative color, or {@link #SPLIT_NOCOLOR} to take part in none
     * @param key   orders the ranks of the new communicator
     * @param config the new communicator's settings, or {@code null} for this one's
     * @return the new communicator, or {@code null} with {@link #SPLIT_NOCOLOR}
     * @throws NcclException INVALID_ARGUMENT for a negative color other than {@code SPLIT_NOCOLOR};
     *     init's errors
     */
    Communicator split(int color, int key, CommConfig config);

    /** {@link #split(int, int, CommConfig)} with this communicator's settings. */
    default Communicator split(int color, int key) {
        return split(color, key, null);
    }

    /**
     * Builds a communicator of every rank but {@code excluded} ({@code ncclCommShrink}), keeping
     * their order: how the survivors carry on after ranks died. Each surviving rank calls it with
     * the same list; it works whether this communicator is healthy or failed (its collectives
     * then ended with an error: {@link #asyncError()}), since it only needs the survivors, not the
     * excluded ranks. No unique id is needed. Close this communicator afterwards.
     *
     * @param config   the new communicator's settings, or {@code null} for this one's
     * @param excluded the ranks to leave out (dead, or leaving); not this rank
     * @return the new communicator, of {@code count() - excluded.length} ranks
     * @throws NcclException INVALID_ARGUMENT for a rank out of range, this rank, or no survivor
     *     left; TIMEOUT if a survivor never joins within the init timeout; init's errors
     */
    Communicator shrink(CommConfig config, int... excluded);

    /** {@link #shrink(CommConfig, int...)} with this communicator's settings. */
    default Communicator shrink(int... excluded) {
        return shrink(null, excluded);
    }

    /** @return a new stream for this communicator's device */
    Stream createStream();

    /** @return the stream the blocking conveniences use */
    Stream defaultStream();

    /**
     * AllReduce: every rank receives the reduction of all ranks' {@code sendbuff}.
     *
     * @param sendbuff {@code count} elements; may be {@code recvbuff} (in place)
     * @param recvbuff {@code count} elements
     * @param count    number of elements, 0 or more
     * @param type     element type
     * @param op       reduction
     * @param stream   where to enqueue
     * @return the operation's completion
     */
    Completion allReduce(MemorySegment sendbuff, MemorySegment recvbuff, long count, DataType type, RedOp op,
                         Stream stream);

    /**
     * Broadcast: every rank receives {@code root}'s {@code sendbuff}.
     *
     * @param sendbuff {@code count} elements (read on the root only)
     * @param recvbuff {@code count} elements
     * @param count    number of elements
     * @param type     element type
     * @param root     the sending rank
     * @param stream   where to enqueue
     * @return the operation's completion
     */
    Completion broadcast(MemorySegment sendbuff, MemorySegment recvbuff, long count, DataType type, int root,
                         Stream stream);

    /**
     * Reduce: {@code root} receives the reduction of all ranks' {@code sendbuff}.
     *
     * @param sendbuff {@code count} elements
     * @param recvbuff {@code count} elements (written on the root only)
     * @param count    number of elements
     * @param type     element type
     * @param op       reduction
     * @param root     the receiving rank
     * @param stream   where to enqueue
     * @return the operation's completion
     */
    Completion reduce(MemorySegment sendbuff, MemorySegment recvbuff, long count, DataType type, RedOp op, int root,
                      Stream stream);

    /**
     * AllGather: every rank receives all ranks' {@code sendbuff}, rank r's at {@code r * sendcount}.
     *
     * @param sendbuff  {@code sendcount} elements; may be rank's own slot of {@code recvbuff}
     * @param recvbuff  {@code nranks * sendcount} elements
     * @param sendcount elements per rank
     * @param type      element type
     * @param stream    where to enqueue
     * @return the operation's completion
     */
    Completion allGather(MemorySegment sendbuff, MemorySegment recvbuff, long sendcount, DataType type, Stream stream);

    /**
     * ReduceScatter: rank r receives block r of the reduction of all ranks' {@code sendbuff}.
     *
     * @param sendbuff  {@code nranks * recvcount} elements
     * @param recvbuff  {@code recvcount} elements; may be the rank's own block of {@code sendbuff}
     * @param recvcount elements per rank
     * @param type      element type
     * @param op        reduction
     * @param stream    where to enqueue
     * @return the operation's completion
     */
    Completion reduceScatter(MemorySegment sendbuff, MemorySegment recvbuff, long recvcount, DataType type, RedOp op,
                             Stream stream);

    /**
     * Sends to one peer; matched with the peer's {@link #recv} (use a group to pair several).
     *
     * @param sendbuff {@code count} elements
     * @param count    number of elements
     * @param type     element type
     * @param peer     the receiving rank
     * @param stream   where to enqueue
     * @return the operation's completion
     */
    Completion send(MemorySegment sendbuff, long count, DataType type, int peer, Stream stream);

    /**
     * Receives from one peer.
     *
     * @param recvbuff {@code count} elements
     * @param count    number of elements
     * @param type     element type
     * @param peer     the sending rank
     * @param stream   where to enqueue
     * @return the operation's completion
     */
    Completion recv(MemorySegment recvbuff, long count, DataType type, int peer, Stream stream);

    /**
     * AllToAll built on grouped send/recv, as NCCL users write it: block p of {@code sendbuff}
     * goes to rank p, block p of {@code recvbuff} comes from rank p.
     *
     * @param sendbuff {@code nranks * count} elements
     * @param recvbuff {@code nranks * count} elements, not overlapping {@code sendbuff}
     * @param count    elements per peer
     * @param type     element type
     * @param stream   where to enqueue
     * @return the completion of the last operation
     * @throws NcclException INVALID_ARGUMENT, before anything is enqueued, for a null or short
     *     buffer, a negative or overflowing count, a null type or stream
     */
    Completion allToAll(MemorySegment sendbuff, MemorySegment recvbuff, long count, DataType type, Stream stream);

    /**
     * Allocates memory on this communicator's device ({@code cudaMalloc} on a CUDA communicator;
     * native host memory on a host communicator, so that code written against device buffers
     * runs on either backend).
     *
     * @param bytes size, at least 1
     * @return the buffer, owned: close it to free it
     * @throws NcclException INVALID_USAGE on a communicator whose device has no memory of its own
     */
    default DeviceBuffer allocate(long bytes) {
        throw noDeviceMemory();
    }

    /**
     * Wraps device memory allocated elsewhere (a foreign {@code void*} and its length; native host
     * memory on a host communicator).
     *
     * @param address device address
     * @param bytes   length in bytes
     * @return a buffer nccl4j never frees
     * @throws NcclException INVALID_ARGUMENT if the address is not memory of this communicator's
     *     device; INVALID_USAGE on a communicator without device memory
     */
    default DeviceBuffer wrap(long address, long bytes) {
        throw noDeviceMemory();
    }

    /**
     * Wraps a stream created elsewhere ({@code cudaStream_t} on a CUDA communicator); collectives
     * enqueued on it run in order with the owner's own work on that stream.
     *
     * @param handle the native stream handle
     * @return a stream nccl4j never destroys
     * @throws NcclException INVALID_USAGE on a communicator without native streams (host backend)
     */
    default Stream wrapStream(long handle) {
        throw NcclException.of(Result.INVALID_USAGE, "the " + device().backend() + " device has no native streams",
                "use createStream() on a " + device().backend() + " communicator");
    }

    /**
     * AllReduce of device memory; the other device-buffer collectives below mirror their
     * {@link MemorySegment} forms, with counts in elements and buffers checked against them.
     *
     * @param sendbuff {@code count} elements; may be {@code recvbuff} (in place)
     * @param recvbuff {@code count} elements
     * @param count    elements
     * @param type     element type
     * @param op       reduction
     * @param stream   this communicator's stream
     * @return the completion (a recorded device event)
     * @throws NcclException INVALID_ARGUMENT for a buffer of another device or too short;
     *     INVALID_USAGE on a communicator without device memory
     */
    default Completion allReduce(DeviceBuffer sendbuff, DeviceBuffer recvbuff, long count, DataType type, RedOp op,
                                 Stream stream) {
        throw noDeviceMemory();
    }

    /**
     * Broadcast of device memory from {@code root}.
     *
     * @param sendbuff {@code count} elements (read on the root only)
     * @param recvbuff {@code count} elements
     * @param count    elements
     * @param type     element type
     * @param root     sending rank
     * @param stream   this communicator's stream
     * @return the completion
     */
    default Completion broadcast(DeviceBuffer sendbuff, DeviceBuffer recvbuff, long count, DataType type, int root,
                                 Stream stream) {
        throw noDeviceMemory();
    }

    /**
     * Reduce of device memory to {@code root}.
     *
     * @param sendbuff {@code count} elements
     * @param recvbuff {@code count} elements (written on the root only)
     * @param count    elements
     * @param type     element type
     * @param op       reduction
     * @param root     receiving rank
     * @param stream   this communicator's stream
     * @return the completion
     */
    default Completion reduce(DeviceBuffer sendbuff, DeviceBuffer recvbuff, long count, DataType type, RedOp op,
                              int root, Stream stream) {
        throw noDeviceMemory();
    }

    /**
     * AllGather of device memory.
     *
     * @param sendbuff  {@code sendcount} elements
     * @param recvbuff  {@code nranks * sendcount} elements
     * @param sendcount elements per rank
     * @param type      element type
     * @param stream    this communicator's stream
     * @return the completion
     */
    default Completion allGather(DeviceBuffer sendbuff, DeviceBuffer recvbuff, long sendcount, DataType type,
                                 Stream stream) {
        throw noDeviceMemory();
    }

    /**
     * ReduceScatter of device memory.
     *
     * @param sendbuff  {@code nranks * recvcount} elements
     * @param recvbuff  {@code recvcount} elements
     * @param recvcount elements per rank
     * @param type      element type
     * @param op        reduction
     * @param stream    this communicator's stream
     * @return the completion
     */
    default Completion reduceScatter(DeviceBuffer sendbuff, DeviceBuffer recvbuff, long recvcount, DataType type,
                                     RedOp op, Stream stream) {
        throw noDeviceMemory();
    }

    /**
     * Send of device memory to one peer; matched with the peer's receive. Inside a group the
     * group's sends and receives of this communicator run together at groupEnd, so a ring
     * exchange (send to next, receive from previous) cannot deadlock.
     *
     * @param sendbuff {@code count} elements
     * @param count    elements
     * @param type     element type
     * @param peer     the receiving rank (this rank: paired with a receive from itself in the group)
     * @param stream   this communicator's stream (one per communicator in a group)
     * @return the completion
     * @throws NcclException INVALID_ARGUMENT for a bad peer or buffer; INVALID_USAGE on a
     *     communicator without device memory
     */
    default Completion send(DeviceBuffer sendbuff, long count, DataType type, int peer, Stream stream) {
        throw noDeviceMemory();
    }

    /**
     * Receive of device memory from one peer.
     *
     * @param recvbuff {@code count} elements
     * @param count    elements
     * @param type     element type
     * @param peer     the sending rank
     * @param stream   this communicator's stream
     * @return the completion
     */
    default Completion recv(DeviceBuffer recvbuff, long count, DataType type, int peer, Stream stream) {
        throw noDeviceMemory();
    }

    /**
     * AllToAll of device memory, as one group of a send and a receive per peer.
     *
     * @param sendbuff {@code nranks * count} elements
     * @param recvbuff {@code nranks * count} elements, not overlapping {@code sendbuff}
     * @param count    elements per peer
     * @param type     element type
     * @param stream   this communicator's stream
     * @return the completion of the last receive (it finishes with the whole exchange)
     */
    default Completion allToAll(DeviceBuffer sendbuff, DeviceBuffer recvbuff, long count, DataType type,
                                Stream stream) {
        throw noDeviceMemory();
    }

    private NcclException noDeviceMemory() {
        return NcclException.of(Result.INVALID_USAGE, "the " + device().backend() + " device has no device memory",
                "pass MemorySegments to collectives of a " + device().backend() + " communicator");
    }

    /**
     * Blocking AllReduce on the default stream.
     *
     * @param sendbuff input
     * @param recvbuff output
     * @param count    elements
     * @param type     element type
     * @param op       reduction
     */
    default void allReduce(MemorySegment sendbuff, MemorySegment recvbuff, long count, DataType type, RedOp op) {
        allReduce(sendbuff, recvbuff, count, type, op, defaultStream()).await();
    }

    /**
     * Blocking in-place AllReduce of a float array (the gradient case).
     *
     * @param data the array, replaced by the reduction
     * @param op   reduction
     */
    default void allReduce(float[] data, RedOp op) {
        MemorySegment s = MemorySegment.ofArray(data);
        allReduce(s, s, data.length, DataType.FLOAT32, op);
    }

    /**
     * Blocking in-place AllReduce of a double array.
     *
     * @param data the array, replaced by the reduction
     * @param op   reduction
     */
    default void allReduce(double[] data, RedOp op) {
        MemorySegment s = MemorySegment.ofArray(data);
        allReduce(s, s, data.length, DataType.FLOAT64, op);
    }

    /**
     * Blocking in-place AllReduce of an int array.
     *
     * @param data the array, replaced by the reduction
     * @param op   reduction
     */
    default void allReduce(int[] data, RedOp op) {
        MemorySegment s = MemorySegment.ofArray(data);
        allReduce(s, s, data.length, DataType.INT32, op);
    }

    /**
     * Blocking in-place AllReduce of a long array.
     *
     * @param data the array, replaced by the reduction
     * @param op   reduction
     */
    default void allReduce(long[] data, RedOp op) {
        MemorySegment s = MemorySegment.ofArray(data);
        allReduce(s, s, data.length, DataType.INT64, op);
    }

    /**
     * Blocking AllReduce between byte buffers (direct or heap) holding elements of {@code type}
     * from their positions to their limits.
     *
     * @param sendbuff input
     * @param recvbuff output, at least as many remaining bytes as {@code sendbuff}
     * @param type     element type
     * @param op       reduction
     */
    default void allReduce(java.nio.ByteBuffer sendbuff, java.nio.ByteBuffer recvbuff, DataType type, RedOp op) {
        MemorySegment s = MemorySegment.ofBuffer(sendbuff);
        allReduce(s, MemorySegment.ofBuffer(recvbuff), s.byteSize() / type.size(), type, op);
    }

    /**
     * Blocking Broadcast of a float array from {@code root}, in place.
     *
     * @param data the array: read on the root, written elsewhere
     * @param root the sending rank
     */
    default void broadcast(float[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, data.length, DataType.FLOAT32, root, defaultStream()).await();
    }

    /**
     * Marks the communicator aborted and releases its resources without waiting for peers
     * ({@code ncclCommAbort}). Every blocked call on it returns with an error. Callable from any
     * thread, any number of times; bounded in time.
     */
    void abort();

    /**
     * Destroys the communicator ({@code ncclCommDestroy}): waits, up to the configured deadline,
     * for outstanding work, then frees everything. Idempotent.
     */
    @Override
    void close();
}
