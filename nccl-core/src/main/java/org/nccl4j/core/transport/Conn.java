package org.nccl4j.core.transport;

import org.nccl4j.core.debug.Log;
import java.lang.foreign.MemorySegment;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.proxy.Proxy;
import org.nccl4j.core.proxy.ProxyTask;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.conn.BuffSizes;
import org.nccl4j.core.shm.InPlaceSource;
import org.nccl4j.core.shm.SharedMemory;

/**
 * One direction of one connection as the kernel sees it ({@code ncclConnInfo}): one buffer per
 * protocol that it writes (send) or reads (recv), the header whose counter it publishes, and
 * the header whose counter it waits on. Where those live is the transport's business: the
 * peer's memory for in-process and SHM, local memory moved by the proxy for NET.
 */
public final class Conn {
    private final String description;
    private final MemorySegment[] buffs = new MemorySegment[Protocol.values().length];
    private final BuffSizes sizes;
    private final MemorySegment publishHeader;
    private final MemorySegment waitHeader;
    private final PeerCheck peerCheck;
    /** The network proxy that moves this connection's steps, or {@code null}. */
    private final Proxy proxy;
    private final AutoCloseable resources;
    /** Steps posted so far; persists across operations as NCCL's {@code conn.step}. */
    long step;
    /** Receive steps whose protocol the proxy was told ({@link #announce}). */
    private long announced;
    /** Kernel-side cache of the counter in {@link #waitHeader}; starts below any step's need. */
    private long creditSeen = Long.MIN_VALUE;
    /** Send side: whether the receiver reads Simple steps where they lie in this process. */
    private boolean sendsInPlace;
    /** Send side: whether the receiver is in this process (it reads any native memory, by address). */
    private boolean receiverHere;
    /** Send side: the slots marked in place in the receiver's header, as this side (their only writer) left them. */
    private int inPlaceSlots;
    /** Receive side: where this side reads what the sender posts in place; {@code null} if it never does. */
    private InPlaceSource inPlace;

    /**
     * @param description   {@code "channel 0 send to rank 1 via SHM"}, for errors
     * @param buffs         the protocol buffers, laid out as {@link BuffSizes#offset} says
     * @param sizes         their sizes
     * @param publishHeader header whose counter this side advances (send: the receiver's tail;
     *                      recv: the sender's head)
     * @param waitHeader    header whose counter this side waits on
     * @param peerCheck     tells whether the peer is still there while waiting
     * @param proxy         the network proxy that moves the steps, or {@code null} without one
     * @param resources     closed with the connection
     */
    public Conn(String description, MemorySegment buffs, BuffSizes sizes, MemorySegment publishHeader,
                MemorySegment waitHeader, PeerCheck peerCheck, Proxy proxy, AutoCloseable resources) {
        this(description, split(buffs, sizes), sizes, publishHeader, waitHeader, peerCheck, proxy, resources);
    }

    /**
     * @param description   {@code "channel 0 send to rank 1 via NET/Socket/0"}, for errors
     * @param buffs         by protocol code, its buffer ({@link BuffSizes#size} bytes), wherever it lies
     * @param sizes         their sizes
     * @param publishHeader header whose counter this side advances
     * @param waitHeader    header whose counter this side waits on
     * @param peerCheck     tells whether the peer is still there while waiting
     * @param proxy         the network proxy that moves the steps, or {@code null} without one
     * @param resources     closed with the connection
     */
    public Conn(String description, MemorySegment[] buffs, BuffSizes sizes, MemorySegment publishHeader,
                MemorySegment waitHeader, PeerCheck peerCheck, Proxy proxy, AutoCloseable resources) {
        this.description = description;
        this.sizes = sizes;
        System.arraycopy(buffs, 0, this.buffs, 0, this.buffs.length);
        this.publishHeader = publishHeader;
        this.waitHeader = waitHeader;
        this.peerCheck = peerCheck;
        this.proxy = proxy;
        this.resources = resources;
    }

    /**
     * @param buffs the protocol buffers, one after the other
     * @param sizes their sizes and offsets
     * @return each protocol's buffer, by protocol code
     */
    private static MemorySegment[] split(MemorySegment buffs, BuffSizes sizes) {
        MemorySegment[] by = new MemorySegment[Protocol.values().length];
        for (Protocol p : Protocol.values()) {
            by[p.code()] = buffs.asSlice(sizes.offset(p), sizes.size(p));
        }
        return by;
    }

    /** @return what this connection is, for messages */
    public String description() {
        return description;
    }

    /**
     * @param p a protocol
     * @return its buffer: {@link ConnMem#STEPS} slots of {@link #stepSize(Protocol)} bytes
     */
    public MemorySegment buff(Protocol p) {
        return buffs[p.code()];
    }

    /**
     * @param p a protocol
     * @return bytes per slot of its buffer
     */
    public int stepSize(Protocol p) {
        return sizes.stepSize(p);
    }

    /**
     * @param p a protocol
     * @param s a step
     * @return the slot of step {@code s} in that protocol's buffer
     */
    public MemorySegment slot(Protocol p, long s) {
        return buffs[p.code()].asSlice(slotOffset(p, s), sizes.stepSize(p));
    }

    /**
     * @param p a protocol
     * @param s a step
     * @return where the slot of step {@code s} starts in {@link #buff(Protocol) that protocol's buffer}
     *     (the kernels address slots this way: a slice per step is an allocation per step)
     */
    public long slotOffset(Protocol p, long s) {
        return (s % ConnMem.STEPS) * sizes.stepSize(p);
    }

    /** @return the Simple buffer */
    public MemorySegment buff() {
        return buff(Protocol.SIMPLE);
    }

    /** @return bytes per slot of the Simple buffer */
    public int stepSize() {
        return stepSize(Protocol.SIMPLE);
    }

    /** @return the header whose counter this side publishes */
    public MemorySegment publishHeader() {
        return publishHeader;
    }

    /** @return the header whose counter this side waits on */
    public MemorySegment waitHeader() {
        return waitHeader;
    }

    /** @return steps posted so far */
    public long step() {
        return step;
    }

    /** @param s the new step count */
    public void step(long s) {
        step = s;
    }

    /** @return the peer's counter (the head of a send connection) as last read by this side's kernel */
    public long creditSeen() {
        return creditSeen;
    }

    /** @param v the peer's counter just read */
    public void creditSeen(long v) {
        creditSeen = v;
    }

    /**
     * Send side: the receiver reads Simple steps where they lie here (its transport checked).
     *
     * @param sameProcess the receiver is in this process and reads any native memory by its
     *                    address; else it maps this process's {@link SharedMemory} only
     */
    public void sendInPlace(boolean sameProcess) {
        sendsInPlace = true;
        receiverHere = sameProcess;
    }

    /**
     * Receive side: the sender may post Simple steps in place, read through {@code source}
     * (closed with the connection).
     */
    public void readInPlace(InPlaceSource source) {
        inPlace = source;
    }

    /** @return whether Simple steps sent here may be posted as a place in this process's memory */
    public boolean sendsInPlace() {
        return sendsInPlace;
    }

    /**
     * Posts Simple step {@code s} as the {@code n} bytes at {@code off} in {@code data}, if the
     * receiver can read them there: it does, and the sender leaves those bytes alone until the
     * receiver has released the step. Call before {@link #postSend}; if this answers
     * {@code false}, copy the data into the slot and call {@link #postInSlot}.
     *
     * @return whether the step was posted in place
     */
    public boolean postInPlace(long s, MemorySegment data, long off, long n) {
        if (!sendsInPlace) {
            return false;
        }
        long id;
        int fd;
        long at;
        if (receiverHere) {
            if (!data.isNative()) {
                return false;
            }
            id = 0;
            fd = -1;
            at = data.address() + off;
        } else {
            SharedMemory.Allocation a = SharedMemory.find(data, off, n);
            if (a == null) {
                return false;
            }
            id = a.id();
            fd = a.fd();
            at = data.address() + off - a.address();
        }
        int slot = (int) (s % ConnMem.STEPS);
        ConnMem.setInPlace(publishHeader, slot, id, fd, at);
        if ((inPlaceSlots & 1 << slot) == 0) {
            inPlaceSlots |= 1 << slot;
            ConnMem.markInPlace(publishHeader, inPlaceSlots);
        }
        return true;
    }

    /** Posts Simple step {@code s} as lying in its slot (nothing to do unless its slot was last posted in place). */
    public void postInSlot(long s) {
        int slot = (int) (s % ConnMem.STEPS);
        if ((inPlaceSlots & 1 << slot) != 0) {
            inPlaceSlots &= ~(1 << slot);
            ConnMem.markInPlace(publishHeader, inPlaceSlots);
        }
    }

    /**
     * Receive side, after step {@code s}'s tail was seen.
     *
     * @return the sender's memory holding the step's data if it was posted in place (at
     *     {@link #inPlaceOffset}), else {@code null}: it is in the slot
     */
    public MemorySegment inPlaceData(long s) {
        if (inPlace == null) {
            return null;
        }
        int slot = (int) (s % ConnMem.STEPS);
        return ConnMem.inPlace(waitHeader, slot)
                ? inPlace.map(ConnMem.inPlaceId(waitHeader, slot), ConnMem.inPlaceFd(waitHeader, slot)) : null;
    }

    /** @return where in {@link #inPlaceData} step {@code s}'s data starts */
    public long inPlaceOffset(long s) {
        return ConnMem.inPlaceOffset(waitHeader, (int) (s % ConnMem.STEPS));
    }

    /** Tells the peer this side's communicator failed or was aborted ({@link ConnMem#FAILED}). */
    public void markFailed() {
        ConnMem.markFailed(publishHeader);
    }

    /** @return whether its memory is still there (a peer in this process frees what it owns at abort) */
    public boolean memoryAlive() {
        return publishHeader.scope().isAlive() && waitHeader.scope().isAlive();
    }

    /** @return whether the peer marked its side failed */
    public boolean peerFailed() {
        return ConnMem.failed(waitHeader);
    }

    /** @return the peer check */
    public PeerCheck peerCheck() {
        return peerCheck;
    }

    /**
     * @return whether a network proxy moves this connection's steps: LL and LL128 receives then
     *     also wait for its tail (the network's copy into the buffer promises no store order)
     */
    public boolean viaProxy() {
        return proxy != null;
    }

    /**
     * Publishes a counter value and wakes whoever moves it on (a network proxy).
     *
     * @param value the new counter
     */
    public void publish(long value) {
        ConnMem.publish(publishHeader, value);
        wake();
    }

    /** Tells the proxy, if any, that a step was posted (after an LL or LL128 step's lines were written). */
    public void wake() {
        if (proxy != null) {
            proxy.posted();
        }
    }

    /**
     * A kernel waiting on this connection moves the proxy's requests itself if the proxy is not
     * busy ({@link Proxy#help}): the bytes go out or come in on a thread that is running anyway.
     */
    public void help() {
        if (proxy != null) {
            proxy.help();
        }
    }

    /**
     * A kernel starts or stops a stretch in which it {@link #help}s this connection's proxy
     * whenever it waits ({@link Proxy#helping}); nothing without a proxy.
     *
     * @param on true as the stretch begins, false as it ends
     */
    public void helping(boolean on) {
        if (proxy != null) {
            proxy.helping(on);
        }
    }

    /**
     * @return whether the proxy has carried everything this connection's kernel posted (always,
     *     without a proxy)
     */
    public boolean drained() {
        return !(resources instanceof ProxyTask t) || t.drained();
    }

    /**
     * Records the size of a send step and, for a proxy, its protocol ({@code sizesFifo}); for
     * LL and LL128 call it before writing the step's lines.
     *
     * @param s         the step
     * @param p         its protocol
     * @param wireBytes bytes of the step in the buffer
     */
    public void postSend(long s, Protocol p, int wireBytes) {
        int slot = (int) (s % ConnMem.STEPS);
        ConnMem.setSize(publishHeader, slot, wireBytes);
        if (proxy != null && p != Protocol.SIMPLE) {
            ConnMem.setTag(publishHeader, ConnMem.SEND_TAGS, slot, ConnMem.tag(s, p));
        }
    }

    /**
     * Tells a proxy the protocol of the receive steps before {@code upTo}, so it can post their
     * network receives into the right buffer. Steps must be announced before they are awaited,
     * and at most {@link ConnMem#STEPS} ahead of {@link #step()} (their slots must be free).
     *
     * @param upTo first step not announced
     * @param p    the protocol of the new steps
     */
    public void announce(long upTo, Protocol p) {
        if (proxy == null || upTo <= announced) {
            return;
        }
        for (long t = Math.max(announced, step); t < upTo; t++) {
            ConnMem.setTag(waitHeader, ConnMem.RECV_TAGS, (int) (t % ConnMem.STEPS), ConnMem.tag(t, p));
        }
        announced = upTo;
        proxy.posted();
    }

    /** Releases the connection's memory and endpoints. */
    public void close() {
        release(inPlace);
        release(resources);
    }

    private void release(AutoCloseable r) {
        if (r == null) {
            return;
        }
        try {
            r.close();
        } catch (Exception e) {
            // Teardown continues with the other connections, but says what it could not release.
            Log.warn("closing %s failed: %s", description, e);
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
