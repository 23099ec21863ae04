package org.nccl4j.core.init;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.bootstrap.Bootstrap;
import org.nccl4j.core.conn.BuffSizes;
import org.nccl4j.core.conn.ConnAllocator;
import org.nccl4j.core.device.DeviceNetConn;
import org.nccl4j.core.device.DeviceNetLink;
import org.nccl4j.core.net.NetSelection;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.proxy.Proxy;
import org.nccl4j.core.transport.Conn;
import org.nccl4j.core.transport.NetGdr;
import org.nccl4j.core.transport.NetTransport;
import org.nccl4j.core.transport.TransportContext;
import org.nccl4j.core.transport.TransportSetup;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.Deadline;

/**
 * A device backend's NET connections: the host engine's {@link NetTransport} and proxy, with the
 * connection memory the backend allocates (its kernels reach it), set up by the same
 * {@link TransportSetup} exchange.
 *
 * @param rank      this rank
 * @param peers     every rank's info
 * @param commId    the communicator's id
 * @param config    parameters
 * @param buffs     protocol buffer sizes
 * @param arena     the communicator's arena
 * @param net       the network initNet chose, or {@code null}
 * @param gdr       where the connections use GPU Direct RDMA
 * @param proxy     the communicator's proxy thread, started on first use
 * @param abort     the abort flag
 * @param bootstrap for the handle exchange
 * @param deadline  the init deadline
 */
record DeviceNetSetup(int rank, List<PeerInfo> peers, long commId, Config config, BuffSizes buffs, Arena arena,
                      NetSelection net, NetGdr gdr, Supplier<Proxy> proxy, AbortFlag abort, Bootstrap bootstrap,
                      Deadline deadline) {
    Map<DeviceNetLink, DeviceNetConn> connect(List<DeviceNetLink> links, int tag, ConnAllocator memory) {
        if (links.isEmpty()) {
            return Map.of();
        }
        if (net == null) {
            throw NcclException.of(Result.SYSTEM_ERROR, "rank " + rank + " reaches rank " + links.get(0).peer()
                    + " only through the network, and no network is usable", "run nccl4j doctor to see why initNet found none");
        }
        TransportContext ctx = new TransportContext(rank, peers, commId, config, buffs, arena, memory, gdr, net, proxy,
                abort);
        List<TransportSetup.Link> sends = links.stream().filter(DeviceNetLink::send)
                .map(l -> new TransportSetup.Link(l.channel(), l.peer())).toList();
        List<TransportSetup.Link> recvs = links.stream().filter(l -> !l.send())
                .map(l -> new TransportSetup.Link(l.channel(), l.peer())).toList();
        TransportSetup.Connected c = new TransportSetup(ctx, List.of(new NetTransport()))
                .connect(bootstrap, recvs, sends, tag, deadline);
        Map<DeviceNetLink, DeviceNetConn> out = new HashMap<>();
        c.sends().forEach((l, conn) -> out.put(new DeviceNetLink(l.channel(), l.peer(), true), new End(conn, true)));
        c.recvs().forEach((l, conn) -> out.put(new DeviceNetLink(l.channel(), l.peer(), false), new End(conn, false)));
        return out;
    }

    /** @param conns connections from {@link #connect}: waits until the proxy has sent what their kernels posted */
    void awaitDrained(Collection<DeviceNetConn> conns) {
        if (!conns.isEmpty()) {
            proxy.get().awaitDrained(() -> conns.stream().allMatch(DeviceNetConn::drained));
        }
    }

    /** A host-engine connection seen as a device backend's: a send end publishes into the receive header. */
    private record End(Conn conn, boolean send) implements DeviceNetConn {
        @Override
        public MemorySegment buff(Protocol p) {
            return conn.buff(p);
        }

        @Override
        public MemorySegment recvHeader() {
            return send ? conn.publishHeader() : conn.waitHeader();
        }

        @Override
        public MemorySegment sendHeader() {
            return send ? conn.waitHeader() : conn.publishHeader();
        }

        @Override
        public boolean drained() {
            return conn.drained();
        }

        @Override
        public void wake() {
            conn.wake();
        }

        @Override
        public void close() {
            conn.close();
        }
    }
}
