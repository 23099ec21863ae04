package org.nccl4j.core.proxy;

import java.lang.foreign.MemorySegment;
import org.nccl4j.core.conn.BuffSizes;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.proto.Ll128Line;
import org.nccl4j.core.proto.LlLine;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.SendComm;

/**
 * The proxy's half of a NET send connection (NCCL's {@code netSendProxy}, dedicated buffers).
 * The kernel writes step {@code t} into slot {@code t % 8} of a protocol's local buffer and its
 * size into {@code sizesFifo}. A Simple step is ready once the kernel publishes
 * {@code tail = t + 1}; an LL or LL128 step, whose tag the kernel wrote first, once every line
 * of it carries the step's flag, except an LL128 step in GPU memory (GPU Direct RDMA), which this
 * task cannot read: it is ready at the tail the kernel publishes after it too. This task hands ready
 * steps to {@code isend} strictly in order and, as each send completes, publishes
 * {@code head = t + 1}: the kernel may then reuse the slot.
 */
public final class NetSendTask extends NetTask {
    /** Steps handed to the network. */
    private long sent;
    /** Steps the network finished sending; the head last published. */
    private long done;

    /**
     * @param net         the network
     * @param comm        the send endpoint
     * @param buffs       the protocol buffers the kernel writes, registered with {@code comm}
     * @param sizes       their sizes
     * @param recvMem     header where the kernel publishes its tail, step sizes and tags
     * @param sendMem     header where this task publishes the head (credit)
     * @param description the connection, for messages
     * @param peer        the receiving rank, for messages
     */
    public NetSendTask(Net net, SendComm comm, NetBuffers buffs, BuffSizes sizes, MemorySegment recvMem,
                       MemorySegment sendMem, String description, int peer) {
        super(net, comm, buffs, sizes, recvMem, sendMem, description, peer);
    }

    @Override
    boolean step() throws NetException {
        boolean moved = false;
        // Acquire the tail first: tags written before a later Simple step's tail are then visible.
        long tail = ConnMem.counter(recvMem);
        while (sent - done < maxInFlight) {
            int slot = (int) (sent % ConnMem.STEPS);
            Protocol p = ConnMem.tagged(ConnMem.tagAt(recvMem, ConnMem.SEND_TAGS, slot), sent);
            if (p == null) {
                if (sent >= tail) {
                    break;
                }
                p = Protocol.SIMPLE;
            }
            int size = ConnMem.size(recvMem, slot);
            if (size < 0 || size > sizes.stepSize(p)) {
                throw internal("step " + sent + " has size " + size + " but a " + p.ncclName() + " slot holds "
                        + sizes.stepSize(p) + " bytes");
            }
            MemorySegment data = slot(p, slot, size);
            boolean ready = p == Protocol.SIMPLE || (buffs.onDevice(p) ? sent < tail : flagsReady(p, data, sent));
            if (!ready) {
                break;
            }
            op = "isend";
            opStep = sent;
            Request r = net.isend((SendComm) comm, data, buffs.handle(p));
            if (r == null) {
                break; // the network cannot take it now; retry on the next pass
            }
            requests[slot] = r;
            sent++;
            moved = true;
        }
        // Oldest first: head is a prefix count, so a later step completing early changes nothing.
        while (done < sent) {
            int slot = (int) (done % ConnMem.STEPS);
            op = "test(isend)";
            opStep = done;
            if (net.test(requests[slot]) < 0) {
                break;
            }
            requests[slot] = null;
            done++;
            ConnMem.publish(sendMem, done);
            moved = true;
        }
        return moved;
    }

    /** Called by the proxy thread only, as {@link #progress} is. */
    @Override
    public boolean inFlight() {
        return done < sent;
    }

    /** A step sent but not complete, or published but not yet handed to the network. */
    @Override
    public boolean owes() {
        return done < sent || sent < ConnMem.counter(recvMem);
    }

    /**
     * Drained once every step the kernel posted (a Simple tail, an LL or LL128 tag) was sent and
     * its send completed.
     */
    @Override
    public synchronized boolean drained() {
        if (isClosed()) {
            return true;
        }
        if (done < sent || sent < ConnMem.counter(recvMem)) {
            return false;
        }
        int slot = (int) (sent % ConnMem.STEPS);
        return ConnMem.tagged(ConnMem.tagAt(recvMem, ConnMem.SEND_TAGS, slot), sent) == null;
    }

    /** Whether the kernel finished writing every line of an LL or LL128 step (NCCL checks the same flags). */
    private static boolean flagsReady(Protocol p, MemorySegment data, long step) {
        if (p == Protocol.LL) {
            int flag = LlLine.flag(step);
            for (long i = data.byteSize() / LlLine.BYTES - 1; i >= 0; i--) {
                if (!LlLine.ready(data, i, flag)) {
                    return false;
                }
            }
            return true;
        }
        long flag = Ll128Line.flag(step);
        for (long i = data.byteSize() / Ll128Line.BYTES - 1; i >= 0; i--) {
            if (!Ll128Line.ready(data, i, flag)) {
                return false;
            }
        }
        return true;
    }

    @Override
    void closeComm() throws NetException {
        net.closeSend((SendComm) comm);
    }
}
