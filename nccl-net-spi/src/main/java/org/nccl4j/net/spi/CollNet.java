package org.nccl4j.net.spi;

import java.lang.foreign.MemorySegment;

/**
 * A collective network ({@code ncclCollNet_t}, version 4): in-network reductions such as SHARP.
 * Used for AllReduce across nodes when {@code NCCL_COLLNET_ENABLE=1}.
 */
public interface CollNet {
    /** @return the collective network's name */
    String name();

    /**
     * @param context the plugin's logger and parameters
     * @throws NetException if it cannot be used here
     */
    void init(NetContext context) throws NetException;

    /**
     * @return number of devices; 0 means unusable
     * @throws NetException on failure
     */
    int devices() throws NetException;

    /**
     * @param dev device index
     * @return the device's properties
     * @throws NetException on failure
     */
    NetProperties getProperties(int dev) throws NetException;

    /**
     * @param dev    device index
     * @param handle {@link Net#HANDLE_MAXSIZE} bytes to fill
     * @return the listening endpoint
     * @throws NetException on failure
     */
    ListenComm listen(int dev, byte[] handle) throws NetException;

    /**
     * Joins the group of all participating ranks.
     *
     * @param handles    every participant's handle, by index
     * @param rank       this participant's index
     * @param listenComm this participant's listening endpoint
     * @return the collective endpoint, or {@code null} to call again later
     * @throws NetException on failure
     */
    CollComm connect(byte[][] handles, int rank, ListenComm listenComm) throws NetException;

    /**
     * @param dataType NCCL data type code
     * @param redOp    NCCL reduction operation code
     * @return whether the network reduces this combination
     * @throws NetException on failure
     */
    boolean reduceSupport(int dataType, int redOp) throws NetException;

    /**
     * @param comm the collective endpoint
     * @param data the buffer
     * @param type memory type
     * @return the registration
     * @throws NetException on failure
     */
    MemoryHandle regMr(CollComm comm, MemorySegment data, int type) throws NetException;

    /**
     * @param comm   the collective endpoint
     * @param handle the registration
     * @throws NetException on failure
     */
    void deregMr(CollComm comm, MemoryHandle handle) throws NetException;

    /**
     * @param comm       the collective endpoint
     * @param sendData   input elements
     * @param recvData   output elements
     * @param count      number of elements
     * @param dataType   NCCL data type code
     * @param redOp      NCCL reduction operation code
     * @param sendHandle registration of {@code sendData}
     * @param recvHandle registration of {@code recvData}
     * @return the request, or {@code null} to retry later
     * @throws NetException on failure
     */
    Request iallreduce(CollComm comm, MemorySegment sendData, MemorySegment recvData, long count, int dataType,
                       int redOp, MemoryHandle sendHandle, MemoryHandle recvHandle) throws NetException;

    /**
     * @param comm   the collective endpoint
     * @param data   received bytes
     * @param handle their registration
     * @return a request, or {@code null} if no flush is needed
     * @throws NetException on failure
     */
    default Request iflush(CollComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
        return null;
    }

    /**
     * @param request a request
     * @return {@code -1} if not done, else bytes transferred
     * @throws NetException on failure
     */
    long test(Request request) throws NetException;

    /**
     * @param comm the collective endpoint
     * @throws NetException on failure
     */
    void closeColl(CollComm comm) throws NetException;

    /**
     * @param comm a listening endpoint
     * @throws NetException on failure
     */
    void closeListen(ListenComm comm) throws NetException;
}
