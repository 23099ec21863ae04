package org.nccl4j.core.proxy;

import java.lang.foreign.MemorySegment;
import org.nccl4j.core.transport.ConnMem;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.Request;

/**
 * The proxy's half of a NET receive connection (NCCL's {@code netRecvProxy}, dedicated
 * buffers, host memory so no flush). Step {@code t} lands in slot {@code t % 8}; this task posts
 * its {@code irecv} once the kernel has released step {@code t - 8} ({@code head > t - 8}), and
 * as receives complete in order publishes the size and {@code tail = t + 1} for the kernel.
 */
public final class NetRecvTask extends NetTask {
    /** One slice per slot, made once: posting a receive must not allocate. */
    private final MemorySegment[] slots = new MemorySegment[ConnMem.STEPS];
    /** Steps with a receive posted. */
    private long posted;
    /** Steps received; the tail last published. */
    private long done;

    /**
     * @param net         the network
     * @param comm        the receive endpoint
     * @param mhandle     registration of {@code buff} with {@code comm}
     * @param buff        the step buffer the kernel reads
     * @param recvMem     header where this task publishes the tail and step sizes
     * @param sendMem     header where the kernel publishes its head (slots it has consumed)
     * @param stepSize    bytes per slot
     * @param description the connection, for messages
     * @param peer        the sending rank, for messages
     */
    public NetRecvTask(Net net, RecvComm comm, MemoryHandle mhandle, MemorySegment buff, MemorySegment recvMem,
                       MemorySegment sendMem, int stepSize, String description, int peer) {
        super(net, comm, mhandle, buff, recvMem, sendMem, stepSize, description, peer);
        for (int i = 0; i < slots.length; i++) {
            slots[i] = slot(i, stepSize);
        }
    }

    @Override
    boolean step() throws NetException {
        boolean moved = false;
        long head = ConnMem.counter(sendMem);
        // Slot of step t is free once the kernel consumed step t - 8.
        while (posted < head + ConnMem.STEPS && posted - done < maxInFlight) {
            int slot = (int) (posted % ConnMem.STEPS);
            op = "irecv";
            opStep = posted;
            Request r = net.irecv((RecvComm) comm, slots[slot], mhandle);
            if (r == null) {
                break;
            }
            requests[slot] = r;
            posted++;
            moved = true;
        }
        while (done < posted) {
            int slot = (int) (done % ConnMem.STEPS);
            op = "test(irecv)";
            opStep = done;
            long n = net.test(requests[slot]);
            if (n < 0) {
                break;
            }
            requests[slot] = null;
            if (n > stepSize) {
                throw internal("step " + done + " received " + n + " bytes into a slot of " + stepSize);
            }
            ConnMem.setSize(recvMem, slot, (int) n);
            done++;
            // Release store: the bytes and the size are visible before the kernel sees the tail.
            ConnMem.publish(recvMem, done);
            moved = true;
        }
        return moved;
    }

    @Override
    void closeComm() throws NetException {
        net.closeRecv((RecvComm) comm);
    }
}
