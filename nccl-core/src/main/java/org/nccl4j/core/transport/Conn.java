package org.nccl4j.core.transport;

import java.lang.foreign.MemorySegment;

/**
 * One direction of one connection as the kernel sees it ({@code ncclConnInfo}): the step buffer
 * it writes (send) or reads (recv), the header whose counter it publishes, and the header whose
 * counter it waits on. Where those live is the transport's business: the peer's memory for
 * in-process and SHM, local memory moved by the proxy for NET.
 */
public final class Conn {
    private final String description;
    private final MemorySegment buff;
    private final MemorySegment publishHeader;
    private final MemorySegment waitHeader;
    private final int stepSize;
    private final PeerCheck peerCheck;
    private final Runnable onPublish;
    private final AutoCloseable resources;
    /** Steps posted so far; persists across operations as NCCL's {@code conn.step}. */
    long step;

    /**
     * @param description   {@code "channel 0 send to rank 1 via SHM"}, for errors
     * @param buff          {@link ConnMem#STEPS} slots of {@code stepSize} bytes
     * @param publishHeader header whose counter this side advances (send: the receiver's tail;
     *                      recv: the sender's head)
     * @param waitHeader    header whose counter this side waits on
     * @param stepSize      bytes per slot
     * @param peerCheck     tells whether the peer is still there while waiting
     * @param onPublish     run after each publish (wakes a proxy), or {@code null}
     * @param resources     closed with the connection
     */
    public Conn(String description, MemorySegment buff, MemorySegment publishHeader, MemorySegment waitHeader,
                int stepSize, PeerCheck peerCheck, Runnable onPublish, AutoCloseable resources) {
        this.description = description;
        this.buff = buff;
        this.publishHeader = publishHeader;
        this.waitHeader = waitHeader;
        this.stepSize = stepSize;
        this.peerCheck = peerCheck;
        this.onPublish = onPublish;
        this.resources = resources;
    }

    /** @return what this connection is, for messages */
    public String description() {
        return description;
    }

    /** @return the step buffer */
    public MemorySegment buff() {
        return buff;
    }

    /** @return the header whose counter this side publishes */
    public MemorySegment publishHeader() {
        return publishHeader;
    }

    /** @return the header whose counter this side waits on */
    public MemorySegment waitHeader() {
        return waitHeader;
    }

    /** @return bytes per slot */
    public int stepSize() {
        return stepSize;
    }

    /** @return steps posted so far */
    public long step() {
        return step;
    }

    /** @param s the new step count */
    public void step(long s) {
        step = s;
    }

    /** @return the peer check */
    public PeerCheck peerCheck() {
        return peerCheck;
    }

    /**
     * Publishes a counter value and wakes whoever moves it on (a network proxy).
     *
     * @param value the new counter
     */
    public void publish(long value) {
        ConnMem.publish(publishHeader, value);
        if (onPublish != null) {
            onPublish.run();
        }
    }

    /** Releases the connection's memory and endpoints. */
    public void close() {
        try {
            if (resources != null) {
                resources.close();
            }
        } catch (Exception ignored) {
            // Teardown continues with the other connections.
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
