package org.nccl4j.core.transport;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.nccl4j.net.spi.Comm;
import org.nccl4j.net.spi.ListenComm;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetProperties;
import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.SendComm;

/**
 * An in-memory network that is strict where real ones are: a send completes only once a
 * receive is posted for it and its bytes are copied only then (so a slot reused too early is
 * caught as corrupt data), requests complete late and are refused at times ({@code null}),
 * connects take a few tries, and more than {@link #maxRequests()} requests in flight, a
 * truncation or a request tested after completion is an error.
 */
final class LoopbackNet implements Net {
    private final Map<Long, Listener> listeners = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(1);
    private final int maxRequests;
    private final int connectTries;
    private final AtomicInteger calls = new AtomicInteger();

    /**
     * @param maxRequests  requests per connection
     * @param connectTries {@code connect} returns {@code null} this many times first
     *                     ({@link Integer#MAX_VALUE}: never connects)
     */
    LoopbackNet(int maxRequests, int connectTries) {
        this.maxRequests = maxRequests;
        this.connectTries = connectTries;
    }

    private static final class Listener implements ListenComm {
        final ConcurrentLinkedQueue<Pair> arrivals = new ConcurrentLinkedQueue<>();
        final AtomicInteger tries = new AtomicInteger();
    }

    /** One connection: both ends share its lock. */
    private static final class Pair {
        final ArrayDeque<Req> sends = new ArrayDeque<>();
        final ArrayDeque<Req> recvs = new ArrayDeque<>();
        final End send = new End(this);
        final End recv = new End(this);
        String closedBy;
    }

    private static final class End implements SendComm, RecvComm {
        final Pair pair;
        int inFlight;

        End(Pair pair) {
            this.pair = pair;
        }
    }

    private static final class Req implements Request {
        final End end;
        final MemorySegment data;
        boolean matched;
        boolean released;
        long size;
        int lateTests;
        String error;

        Req(End end, MemorySegment data, int lateTests) {
            this.end = end;
            this.data = data;
            this.lateTests = lateTests;
        }
    }

    private static final MemoryHandle MR = new MemoryHandle() {
    };

    @Override
    public String name() {
        return "Loopback";
    }

    @Override
    public void init(NetContext context) {
    }

    @Override
    public int devices() {
        return 2;
    }

    @Override
    public NetProperties getProperties(int dev) {
        return new NetProperties("lo" + dev, null, dev, PTR_HOST, 1000, 0, 1, 0f, maxRequests);
    }

    @Override
    public ListenComm listen(int dev, byte[] handle) {
        long id = ids.getAndIncrement();
        listeners.put(id, new Listener());
        ByteBuffer.wrap(handle).putLong(id).putInt(dev);
        return listeners.get(id);
    }

    @Override
    public SendComm connect(int dev, byte[] handle) throws NetException {
        Listener l = listeners.get(ByteBuffer.wrap(handle).getLong());
        if (l == null) {
            throw new NetException(NetException.Kind.SYSTEM, "Loopback: nobody listens on this handle");
        }
        if (connectTries == Integer.MAX_VALUE || l.tries.getAndIncrement() < connectTries) {
            return null;
        }
        Pair p = new Pair();
        l.arrivals.add(p);
        return p.send;
    }

    @Override
    public RecvComm accept(ListenComm listenComm) {
        Pair p = ((Listener) listenComm).arrivals.poll();
        return p == null ? null : p.recv;
    }

    @Override
    public MemoryHandle regMr(Comm comm, MemorySegment data, int type) throws NetException {
        if (type != PTR_HOST) {
            throw new NetException(NetException.Kind.INTERNAL, "Loopback: host memory only");
        }
        return MR;
    }

    @Override
    public void deregMr(Comm comm, MemoryHandle handle) {
    }

    private Req post(End end, MemorySegment data, boolean send) throws NetException {
        Pair p = end.pair;
        synchronized (p) {
            if (p.closedBy != null) {
                throw new NetException(NetException.Kind.REMOTE, "Loopback: connection closed by the " + p.closedBy);
            }
            if (end.inFlight >= maxRequests) {
                throw new NetException(NetException.Kind.INTERNAL, "Loopback: more than " + maxRequests
                        + " requests in flight");
            }
            if (calls.incrementAndGet() % 5 == 0) {
                return null; // "try again later"
            }
            Req r = new Req(end, data, calls.get() % 3);
            end.inFlight++;
            (send ? p.sends : p.recvs).add(r);
            while (!p.sends.isEmpty() && !p.recvs.isEmpty()) {
                Req s = p.sends.poll();
                Req q = p.recvs.poll();
                if (s.data.byteSize() > q.data.byteSize()) {
                    q.error = s.error = "Loopback: message of " + s.data.byteSize() + " bytes truncated to "
                            + q.data.byteSize();
                } else {
                    MemorySegment.copy(s.data, 0, q.data, 0, s.data.byteSize());
                }
                s.size = q.size = s.data.byteSize();
                s.matched = q.matched = true;
            }
            return r;
        }
    }

    @Override
    public Request isend(SendComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
        return post((End) comm, data, true);
    }

    @Override
    public Request irecv(RecvComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
        return post((End) comm, data, false);
    }

    @Override
    public long test(Request request) throws NetException {
        Req r = (Req) request;
        Pair p = r.end.pair;
        synchronized (p) {
            if (r.released) {
                throw new NetException(NetException.Kind.INVALID_USAGE, "Loopback: request tested after completion");
            }
            if (r.error != null) {
                throw new NetException(NetException.Kind.INTERNAL, r.error);
            }
            if (!r.matched) {
                if (p.closedBy != null) {
                    throw new NetException(NetException.Kind.REMOTE, "Loopback: connection closed by the " + p.closedBy);
                }
                return -1;
            }
            if (r.lateTests-- > 0) {
                return -1;
            }
            r.released = true;
            r.end.inFlight--;
            return r.size;
        }
    }

    private static void close(End e, String who) {
        synchronized (e.pair) {
            if (e.pair.closedBy == null) {
                e.pair.closedBy = who;
            }
        }
    }

    @Override
    public void closeSend(SendComm comm) {
        close((End) comm, "sender");
    }

    @Override
    public void closeRecv(RecvComm comm) {
        close((End) comm, "receiver");
    }

    @Override
    public void closeListen(ListenComm comm) {
        listeners.values().remove(comm);
    }

    @Override
    public int maxRequests() {
        return maxRequests;
    }
}
