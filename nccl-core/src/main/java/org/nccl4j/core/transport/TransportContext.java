package org.nccl4j.core.transport;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.function.Supplier;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.net.NetSelection;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.proxy.Proxy;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.conn.BuffSizes;
import org.nccl4j.core.conn.ConnAllocator;

/**
 * What transports need to know about their communicator.
 *
 * @param rank     this rank
 * @param peers    every rank's AllGather1 info
 * @param commId   the communicator's id (its unique id's nonce), keeping names apart
 * @param config   parameters
 * @param buffs    protocol buffer bytes per connection
 * @param arena    owns this communicator's connection memory
 * @param memory   allocates the connection memory a kernel touches (the arena's, or a device backend's)
 * @param gdr      where NET connections put their buffers in GPU memory (GPU Direct RDMA)
 * @param net      the network chosen by initNet
 * @param proxy    the communicator's proxy thread, started on first use
 * @param abort    the abort flag
 */
public record TransportContext(int rank, List<PeerInfo> peers, long commId, Config config, BuffSizes buffs, Arena arena,
                               ConnAllocator memory, NetGdr gdr, NetSelection net, Supplier<Proxy> proxy, AbortFlag abort) {
    /** A host engine's context: connection memory from the arena. */
    public TransportContext(int rank, List<PeerInfo> peers, long commId, Config config, BuffSizes buffs, Arena arena,
                            NetSelection net, Supplier<Proxy> proxy, AbortFlag abort) {
        this(rank, peers, commId, config, buffs, arena, arena::allocate, NetGdr.NONE, net, proxy, abort);
    }

    /** @return number of ranks */
    public int nranks() {
        return peers.size();
    }

    /** @return this rank's info */
    public PeerInfo me() {
        return peers.get(rank);
    }

    /** @return bytes of a receive side's connection memory: header and all protocol buffers */
    public long recvMemSize() {
        return ConnMem.HEADER + buffs.total();
    }

    /**
     * @param channel channel id
     * @param send    the sending rank
     * @param recv    the receiving rank
     * @param via     transport name
     * @return a description such as {@code channel 00 : 0 -> 1 via SHM}
     */
    public String describe(int channel, int send, int recv, String via) {
        return String.format("Channel %02d : %d -> %d via %s", channel, send, recv, via);
    }
}
