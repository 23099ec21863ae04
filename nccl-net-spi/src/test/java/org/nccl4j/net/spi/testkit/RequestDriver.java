package org.nccl4j.net.spi.testkit;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.nccl4j.net.spi.ListenComm;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.SendComm;

/**
 * Drives a network's calls to completion with a deadline: retries calls that return
 * {@code null} ("not now"), polls requests until done. Every wait ends with an
 * {@link AssertionError} naming what was awaited once the timeout passes, so a broken plugin
 * fails a test instead of hanging it.
 *
 * <p>Waiting spins briefly, then parks for a few microseconds per poll, leaving the CPU to the
 * plugin's own threads (the test machines may have two cores).
 */
public final class RequestDriver {
    private static final int SPINS_BEFORE_PARKING = 64;
    private static final long PARK_NANOS = 10_000;

    private final Net net;
    private final long timeoutNanos;

    /**
     * A network call that may answer {@code null} for "call again".
     *
     * @param <T> the result type
     */
    @FunctionalInterface
    public interface NetCall<T> {
        /**
         * @return the result, or {@code null} to be called again
         * @throws NetException on failure
         */
        T call() throws NetException;
    }

    /**
     * @param net     the network
     * @param timeout how long any one wait may take
     */
    public RequestDriver(Net net, Duration timeout) {
        this.net = net;
        this.timeoutNanos = timeout.toNanos();
    }

    /** @return the network driven */
    public Net net() {
        return net;
    }

    /**
     * Calls until the call returns non-null.
     *
     * @param what what is awaited, for the failure message
     * @param call the call
     * @param <T>  the result type
     * @return the first non-null result
     * @throws NetException   if the call fails
     * @throws AssertionError if the timeout passes first
     */
    public <T> T untilNonNull(String what, NetCall<T> call) throws NetException {
        long deadline = System.nanoTime() + timeoutNanos;
        for (int round = 0; ; round++) {
            T result = call.call();
            if (result != null) {
                return result;
            }
            pause(what, deadline, round);
        }
    }

    /**
     * Polls a request until it completes.
     *
     * @param what    what is awaited, for the failure message
     * @param request the request
     * @return the bytes it transferred
     * @throws NetException   if the request fails
     * @throws AssertionError if the timeout passes first
     */
    public long complete(String what, Request request) throws NetException {
        long deadline = System.nanoTime() + timeoutNanos;
        for (int round = 0; ; round++) {
            long size = net.test(request);
            if (size >= 0) {
                return size;
            }
            pause(what, deadline, round);
        }
    }

    /**
     * Sends a whole message: {@code isend} (retried while it answers {@code null}), then polls.
     *
     * @param comm   the sending end
     * @param data   the message
     * @param handle its registration
     * @return the size reported by the network
     * @throws NetException on failure
     */
    public long send(SendComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
        Request r = untilNonNull("isend of " + data.byteSize() + " bytes", () -> net.isend(comm, data, handle));
        return complete("send of " + data.byteSize() + " bytes", r);
    }

    /**
     * Receives a whole message: {@code irecv} (retried while it answers {@code null}), then polls.
     *
     * @param comm   the receiving end
     * @param data   the buffer
     * @param handle its registration
     * @return the size the sender sent
     * @throws NetException on failure
     */
    public long receive(RecvComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
        Request r = untilNonNull("irecv into " + data.byteSize() + " bytes", () -> net.irecv(comm, data, handle));
        return complete("receive into " + data.byteSize() + " bytes", r);
    }

    /**
     * Opens a connection on one thread the way nccl4j's GDR probe does: {@code listen},
     * then {@code connect} and {@code accept} alternately until both return an endpoint (so a
     * {@code connect} that waits for the peer's {@code accept} fails here by timeout), then
     * {@code closeListen}.
     *
     * @param dev the device
     * @return both ends
     * @throws NetException on failure
     */
    public CommPair connect(int dev) throws NetException {
        byte[] handle = new byte[Net.HANDLE_MAXSIZE];
        ListenComm listen = net.listen(dev, handle);
        SendComm send = null;
        RecvComm recv = null;
        try {
            long deadline = System.nanoTime() + timeoutNanos;
            for (int round = 0; send == null || recv == null; round++) {
                if (send == null) {
                    send = net.connect(dev, handle);
                }
                if (recv == null) {
                    recv = net.accept(listen);
                }
                if (send == null || recv == null) {
                    pause("connect (" + (send != null ? "done" : "pending") + ") and accept ("
                            + (recv != null ? "done" : "pending") + ") on device " + dev, deadline, round);
                }
            }
            CommPair pair = new CommPair(send, recv);
            send = null;
            recv = null;
            return pair;
        } finally {
            // On failure, close what was opened so the next test starts clean.
            closeQuietly(send, recv);
            net.closeListen(listen);
        }
    }

    private void closeQuietly(SendComm send, RecvComm recv) {
        try {
            if (send != null) {
                net.closeSend(send);
            }
        } catch (NetException | RuntimeException ignored) {
            // already failing; the original error matters
        }
        try {
            if (recv != null) {
                net.closeRecv(recv);
            }
        } catch (NetException | RuntimeException ignored) {
            // already failing; the original error matters
        }
    }

    private void pause(String what, long deadline, int round) {
        if (System.nanoTime() - deadline > 0) {
            throw new AssertionError("timed out after " + Duration.ofNanos(timeoutNanos).toMillis() + " ms waiting for "
                    + what);
        }
        if (round < SPINS_BEFORE_PARKING) {
            Thread.onSpinWait();
        } else {
            LockSupport.parkNanos(PARK_NANOS);
        }
        if (Thread.currentThread().isInterrupted()) {
            throw new AssertionError("interrupted while waiting for " + what);
        }
    }
}
