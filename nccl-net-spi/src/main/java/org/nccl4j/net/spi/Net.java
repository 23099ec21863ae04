package org.nccl4j.net.spi;

import java.lang.foreign.MemorySegment;

/**
 * A network: NCCL's {@code ncclNet_t} (version 4 semantics, with version 5's non-blocking
 * connect and accept).
 *
 * <p>Threading: the control calls ({@code listen}, {@code connect}, {@code accept},
 * {@code regMr}, {@code close*}) may come from any thread; all data-path calls of one connection
 * ({@code isend}, {@code irecv}, {@code iflush}, {@code test}) come from one thread at a time.
 * Different connections may be driven from different threads concurrently.
 *
 * <p>Requests: {@code isend}/{@code irecv} return {@code null} when the request cannot start now
 * (for instance the peer has not posted its receive); the caller retries later. At most
 * {@link #maxRequests()} requests are in flight per connection. {@link #test} must not allocate.
 * Messages on one send/receive pair match in FIFO order, zero-byte messages included.
 */
public interface Net {
    /** Size of the connection handle exchanged between ranks ({@code NCCL_NET_HANDLE_MAXSIZE}, v5). */
    int HANDLE_MAXSIZE = 128;
    /** Memory type: host memory ({@code NCCL_PTR_HOST}). */
    int PTR_HOST = 0x1;
    /** Memory type: device memory ({@code NCCL_PTR_CUDA}). */
    int PTR_CUDA = 0x2;
    /** Memory type: DMA-BUF ({@code NCCL_PTR_DMABUF}). */
    int PTR_DMABUF = 0x4;
    /** Requests in flight per connection that every plugin supports ({@code NCCL_NET_MAX_REQUESTS}, v4). */
    int MAX_REQUESTS = 8;

    /** @return the network's name */
    String name();

    /**
     * Initialises the network; called once, before anything else.
     *
     * @param context the plugin's logger and parameters
     * @throws NetException if the network cannot be used here; initNet then tries the next one
     */
    void init(NetContext context) throws NetException;

    /**
     * @return the number of devices (adapters); 0 means the network is not usable
     * @throws NetException on failure
     */
    int devices() throws NetException;

    /**
     * @param dev a device index, 0 to {@code devices()-1}
     * @return the device's properties
     * @throws NetException if {@code dev} is invalid or on failure
     */
    NetProperties getProperties(int dev) throws NetException;

    /**
     * Creates a receiving endpoint and writes the handle a peer needs to connect to it.
     *
     * @param dev    device index
     * @param handle {@link #HANDLE_MAXSIZE} bytes to fill; shipped to the peer by nccl4j
     * @return the listening endpoint
     * @throws NetException on failure
     */
    ListenComm listen(int dev, byte[] handle) throws NetException;

    /**
     * Connects to a peer's handle. Must not wait for the peer's {@code accept}.
     *
     * @param dev    device index
     * @param handle the handle written by the peer's {@code listen}
     * @return the send endpoint, or {@code null} if the connection is still being established
     *     (call again with the same handle)
     * @throws NetException on failure
     */
    SendComm connect(int dev, byte[] handle) throws NetException;

    /**
     * Completes the receiving side of a connection.
     *
     * @param listenComm the endpoint from {@code listen}
     * @return the receive endpoint, or {@code null} if the peer has not connected yet (call again)
     * @throws NetException on failure
     */
    RecvComm accept(ListenComm listenComm) throws NetException;

    /**
     * Registers a buffer for use with a connection.
     *
     * @param comm a send or receive endpoint
     * @param data the buffer
     * @param type {@link #PTR_HOST} or {@link #PTR_CUDA}
     * @return the registration
     * @throws NetException if the type is unsupported or on failure
     */
    MemoryHandle regMr(Comm comm, MemorySegment data, int type) throws NetException;

    /**
     * @param comm   the endpoint the buffer was registered with
     * @param handle the registration
     * @throws NetException on failure
     */
    void deregMr(Comm comm, MemoryHandle handle) throws NetException;

    /**
     * Starts sending {@code data} (its whole size).
     *
     * @param comm   the send endpoint
     * @param data   the bytes to send; must stay untouched until the request completes
     * @param handle the registration covering {@code data}
     * @return the request, or {@code null} to retry later
     * @throws NetException on failure
     */
    Request isend(SendComm comm, MemorySegment data, MemoryHandle handle) throws NetException;

    /**
     * Starts receiving into {@code data}; the sender may send less than its size.
     *
     * @param comm   the receive endpoint
     * @param data   the buffer; its size is the capacity
     * @param handle the registration covering {@code data}
     * @return the request, or {@code null} to retry later
     * @throws NetException on failure
     */
    Request irecv(RecvComm comm, MemorySegment data, MemoryHandle handle) throws NetException;

    /**
     * Makes data received into device memory visible to the device (GPUDirect RDMA).
     *
     * @param comm   the receive endpoint
     * @param data   the received bytes
     * @param handle the registration covering {@code data}
     * @return a request to test, or {@code null} if no flush is needed
     * @throws NetException on failure
     */
    default Request iflush(RecvComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
        return null;
    }

    /**
     * Polls a request. Once it reports completion the request is released and must not be
     * tested again. Must not allocate.
     *
     * @param request a request from {@code isend}, {@code irecv} or {@code iflush}
     * @return {@code -1} if not done yet, else the number of bytes transferred (for a receive,
     *     the size the sender sent)
     * @throws NetException on failure (the connection is then unusable)
     */
    long test(Request request) throws NetException;

    /**
     * @param comm a send endpoint; closing one that is still sending fails its requests
     * @throws NetException on failure
     */
    void closeSend(SendComm comm) throws NetException;

    /**
     * @param comm a receive endpoint
     * @throws NetException on failure
     */
    void closeRecv(RecvComm comm) throws NetException;

    /**
     * @param comm a listening endpoint
     * @throws NetException on failure
     */
    void closeListen(ListenComm comm) throws NetException;

    /** @return the requests this network supports in flight per connection */
    default int maxRequests() {
        return MAX_REQUESTS;
    }

    /** Releases everything the network holds process-wide (threads, native libraries). */
    default void shutdown() {
    }

    /**
     * Whether the process may {@link #shutdown} this network once its last communicator is
     * destroyed and initialise a new instance for the next one: then a process that is done with
     * nccl4j keeps none of the network's threads. NCCL initialises its network once per process
     * and never finalises it, which is what a network that answers {@code false} (the default:
     * native plugins) gets.
     *
     * @return whether shutdown and a later fresh init are safe
     */
    default boolean restartable() {
        return false;
    }
}
