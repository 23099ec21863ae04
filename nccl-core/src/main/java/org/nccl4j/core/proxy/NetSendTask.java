package org.nccl4j.core.proxy;

import java.lang.foreign.MemorySegment;
import org.nccl4j.core.transport.ConnMem;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.SendComm;

/**
 * The proxy's half of a NET send connection (NCCL's {@code netSendProxy}, dedicated buffers).
 * The kernel writes step {@code t} into slot {@code t % 8} of the local buffer, its size into
 * {@code sizesFifo} and publishes {@code tail = t + 1}; this task hands published steps to
 * {@code isend} strictly in order and, as each send completes, publishes {@code head = t + 1}:
 * the kernel may then reuse the slot.
 */
public final class NetSendTask extends NetTask {
    /** Steps handed to the network. */
    private long sent;
    /** Steps the network finished sending; the head last published. */
    private long done;

    /**
     * @param net         the network
     * @param comm        the send endpoint
     * @param mhandle     registration of {@code buff} with {@code comm}
     * @param buff        the step buffer the kernel writes
     * @param recvMem     header where the kernel publishes its tail and step sizes
     * @param sendMem     header where this task publishes the head (credit)
     * @param stepSize    bytes per slot
     * @param description the connection, for messages
     * @param peer        the receiving rank, for messages
     */
    public NetSendTask(Net net, SendComm comm, MemoryHandle mhandle, MemorySegment buff, MemorySegment recvMem,
                       MemorySegment sendMem, int stepSize, String description, int peer) {
        super(net, comm, mhandle, buff, recvMem, sendMem, stepSize, description, peer);
    }

    @Override
    boolean step() throws NetException {
        boolean moved = false;
        long tail = ConnMem.counter(recvMem);
        while (sent < tail && sent - done < maxInFlight) {
            int slot = (int) (sent % ConnMem.STEPS);
            // The tail's acquire load above makes the kernel's size and bytes for this step visible.
            int size = ConnMem.size(recvMem, slot);
            if (size < 0 || size > stepSize) {
                throw internal("step " + sent + " has size " + size + " but a slot holds " + stepSize + " bytes");
            }
            op = "isend";
            opStep = sent;
            Request r = net.isend((SendComm) comm, slot(slot, size), mhandle);
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

    @Override
    void closeComm() throws NetException {
        net.closeSend((SendComm) comm);
    }
}
