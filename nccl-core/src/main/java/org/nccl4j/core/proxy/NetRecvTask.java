package org.nccl4j.core.proxy;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.nccl4j.core.conn.BuffSizes;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.Request;

/**
 * The proxy's half of a NET receive connection (NCCL's {@code netRecvProxy}, dedicated
 * buffers). Step {@code t} lands in slot {@code t % 8} of the buffer of
 * the protocol the kernel announced for it (its {@code recvTags}); this task posts its
 * {@code irecv} once it is announced and the kernel has released step {@code t - 8}
 * ({@code head > t - 8}), and as receives complete in order publishes the size and
 * {@code tail = t + 1} for the kernel. A Simple step received into GPU memory (GPU Direct RDMA)
 * is flushed first ({@code iflush}): the network's writes must reach the GPU before the kernel
 * reads them.
 */
public final class NetRecvTask extends NetTask {
    /** Protocol of the receive posted in each slot. */
    private final Protocol[] protocols = new Protocol[ConnMem.STEPS];
    /** Bytes received in each slot whose flush is in flight; -1 while its receive is. */
    private final int[] flushing = new int[ConnMem.STEPS];
    /** Steps with a receive posted. */
    private long posted;
    /** Steps received; the tail last published. */
    private long done;

    /**
     * @param net         the network
     * @param comm        the receive endpoint
     * @param buffs       the protocol buffers the kernel reads, registered with {@code comm}
     * @param sizes       their sizes
     * @param recvMem     header where this task publishes the tail and step sizes, and reads tags
     * @param sendMem     header where the kernel publishes its head (slots it has consumed)
     * @param description the connection, for messages
     * @param peer        the sending rank, for messages
     */
    public NetRecvTask(Net net, RecvComm comm, NetBuffers buffs, BuffSizes sizes, MemorySegment recvMem,
                       MemorySegment sendMem, String description, int peer) {
        super(net, comm, buffs, sizes, recvMem, sendMem, description, peer);
        Arrays.fill(flushing, -1);
    }

    @Override
    boolean step() throws NetException {
        boolean moved = false;
        long head = ConnMem.counter(sendMem);
        // Slot of step t is free once the kernel consumed step t - 8.
        while (posted < head + ConnMem.STEPS && posted - done < maxInFlight) {
            int slot = (int) (posted % ConnMem.STEPS);
            Protocol p = ConnMem.tagged(ConnMem.tagAt(recvMem, ConnMem.RECV_TAGS, slot), posted);
            if (p == null) {
                break; // the kernel has not reached this step yet
            }
            op = "irecv";
            opStep = posted;
            Request r = net.irecv((RecvComm) comm, slot(p, slot, sizes.stepSize(p)), buffs.handle(p));
            if (r == null) {
                break;
            }
            requests[slot] = r;
            protocols[slot] = p;
            posted++;
            moved = true;
        }
        while (done < posted) {
            int slot = (int) (done % ConnMem.STEPS);
            opStep = done;
            int n = flushing[slot];
            if (n < 0) {
                op = "test(irecv)";
                long got = net.test(requests[slot]);
                if (got < 0) {
                    break;
                }
                requests[slot] = null;
                Protocol p = protocols[slot];
                if (got > sizes.stepSize(p)) {
                    throw internal("step " + done + " received " + got + " bytes into a " + p.ncclName()
                            + " slot of " + sizes.stepSize(p));
                }
                n = (int) got;
                if (n > 0 && p == Protocol.SIMPLE && buffs.onDevice(p)) {
                    op = "iflush";
                    Request f = net.iflush((RecvComm) comm, slot(p, slot, n), buffs.handle(p));
                    if (f != null) {
                        requests[slot] = f;
                        flushing[slot] = n;
                        moved = true;
                        continue;
                    }
                }
            } else {
                op = "test(iflush)";
                if (net.test(requests[slot]) < 0) {
                    break;
                }
                requests[slot] = null;
                flushing[slot] = -1;
            }
            ConnMem.setSize(recvMem, slot, n);
            done++;
            // Release store: the bytes and the size are visible before the kernel sees the tail.
            ConnMem.publish(recvMem, done);
            moved = true;
        }
        return moved;
    }

    /** Called by the proxy thread only, as {@link #progress} is. */
    @Override
    public boolean inFlight() {
        return done < posted;
    }

    @Override
    void closeComm() throws NetException {
        net.closeRecv((RecvComm) comm);
    }
}
