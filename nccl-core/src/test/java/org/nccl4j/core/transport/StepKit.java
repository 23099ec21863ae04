package org.nccl4j.core.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.nccl4j.core.peer.PeerInfo;
import org.nccl4j.core.net.NetSelection;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.proxy.Proxy;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.Deadline;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.proto.LlLine;
import org.nccl4j.core.proto.Ll128Line;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.conn.BuffSizes;

/**
 * Drives connections the way the kernel does (Simple protocol, one slot per step, each receive
 * step announced to a proxy before it is awaited) and builds
 * transport contexts by hand. Step {@code s} carries {@link #size} bytes of {@link #pattern}, so
 * the receiver can check every byte and size without talking to the sender.
 */
final class StepKit {
    private StepKit() {
    }

    /**
     * @param rank     rank
     * @param hostHash host identity
     * @param pidHash  process identity
     * @param pid      process id (liveness)
     * @return a peer info
     */
    static PeerInfo peer(int rank, long hostHash, long pidHash, long pid) {
        return new PeerInfo(rank, rank, false, hostHash, pidHash, 42, 0x1000L * (rank + 1), pid, "host", "test", "localhost");
    }

    /**
     * @param env parameters by {@code NCCL_*} name
     * @return a config that sees only them
     */
    static Config config(Map<String, String> env) {
        return Config.of(new Properties(), env, Path.of("/nonexistent"));
    }

    /**
     * @param simple Simple buffer bytes
     * @return buffer sizes with that Simple buffer and small LL and LL128 buffers
     */
    static BuffSizes buffs(int simple) {
        return new BuffSizes(ConnMem.STEPS * LlLine.BYTES * 8, ConnMem.STEPS * Ll128Line.BYTES * 2, simple);
    }

    /**
     * @return a context for {@code rank} among {@code peers}
     */
    static TransportContext ctx(int rank, List<PeerInfo> peers, long commId, Config config, int buffSize, Arena arena,
                                NetSelection net, Supplier<Proxy> proxy, AbortFlag abort) {
        return new TransportContext(rank, peers, commId, config, buffs(buffSize), arena, net, proxy, abort);
    }

    /**
     * @param s        step
     * @param stepSize slot size
     * @return the bytes step {@code s} carries: zero, a full slot, or something in between
     */
    static int size(long s, int stepSize) {
        return switch ((int) (s % 7)) {
            case 0 -> 0;
            case 1 -> stepSize;
            default -> (int) (((s * 2654435761L) >>> 5) % stepSize) + 1;
        };
    }

    /**
     * @param s step
     * @param i byte index
     * @return the byte at {@code i} of step {@code s}
     */
    static byte pattern(long s, long i) {
        return (byte) (s * 131 + i * 7 + (i >>> 8) + 1);
    }

    /**
     * Sends {@code steps} steps: waits for credit, writes the slot, records its size, publishes.
     *
     * @param c        a send connection
     * @param steps    how many
     * @param deadline when to give up
     */
    static void send(Conn c, long steps, Deadline deadline) {
        int stepSize = c.stepSize();
        for (long k = 0; k < steps; k++) {
            long s = c.step();
            await(c, c.waitHeader(), s + 1 - ConnMem.STEPS, deadline);
            int slot = (int) (s % ConnMem.STEPS);
            int size = size(s, stepSize);
            MemorySegment dst = c.buff().asSlice((long) slot * stepSize, stepSize);
            for (int i = 0; i < size; i++) {
                dst.set(ValueLayout.JAVA_BYTE, i, pattern(s, i));
            }
            ConnMem.setSize(c.publishHeader(), slot, size);
            c.publish(s + 1);
            c.step(s + 1);
        }
    }

    /**
     * Receives {@code steps} steps, checks each byte (and the size where the transport records
     * it in the receiver's header), returns credit.
     *
     * @param c         a receive connection
     * @param steps     how many
     * @param deadline  when to give up
     */
    static void recv(Conn c, long steps, Deadline deadline) {
        int stepSize = c.stepSize();
        for (long k = 0; k < steps; k++) {
            long s = c.step();
            c.announce(s + 1, Protocol.SIMPLE);
            await(c, c.waitHeader(), s + 1, deadline);
            int slot = (int) (s % ConnMem.STEPS);
            int size = size(s, stepSize);
            int recorded = ConnMem.size(c.waitHeader(), slot);
            if (recorded != size) {
                throw new AssertionError(c + ": step " + s + " recorded " + recorded + " bytes, sent " + size);
            }
            MemorySegment src = c.buff().asSlice((long) slot * stepSize, stepSize);
            for (int i = 0; i < size; i++) {
                byte b = src.get(ValueLayout.JAVA_BYTE, i);
                if (b != pattern(s, i)) {
                    throw new AssertionError(c + ": step " + s + " byte " + i + " is " + b + ", expected " + pattern(s, i));
                }
            }
            c.publish(s + 1);
            c.step(s + 1);
        }
    }

    /** Waits as the kernel does: spin, then yield the (shared) cores; checks the peer and a deadline. */
    static void await(Conn c, MemorySegment header, long target, Deadline deadline) {
        int spins = 0;
        while (ConnMem.counter(header) < target) {
            if (++spins < 64) {
                Thread.onSpinWait();
                continue;
            }
            LockSupport.parkNanos(20_000);
            if ((spins & 63) == 0) {
                String problem = c.peerCheck().problem();
                if (problem != null) {
                    throw new AssertionError(c + ": " + problem);
                }
                if (deadline.expired()) {
                    throw new AssertionError(c + ": counter stuck at " + ConnMem.counter(header) + ", waiting for "
                            + target);
                }
            }
        }
    }

    /**
     * Runs tasks on their own threads and waits for all; the first failure is rethrown.
     *
     * @param timeoutMs how long to wait for them together
     * @param tasks     the tasks
     * @throws Exception the first failure, or a timeout
     */
    static void concurrently(long timeoutMs, Callable<?>... tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(tasks.length);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (Callable<?> t : tasks) {
                futures.add(pool.submit(t));
            }
            Deadline d = Deadline.afterMillis(timeoutMs);
            for (Future<?> f : futures) {
                try {
                    f.get(d.remainingMillis() + 1, TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Exception x) {
                        throw x;
                    }
                    throw (Error) e.getCause();
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
