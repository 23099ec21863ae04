package org.nccl4j.examples;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import org.nccl4j.Communicator;
import org.nccl4j.DataType;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nccl4j soak}: rank JVMs that, for a given time, make communicators (split from the
 * first, all ranks or two halves), run collectives of random kinds and sizes on them with exact
 * checks, and destroy them, round after round. Nothing here measures the processes: {@code
 * scripts/soak} samples their memory, file descriptors and threads from outside.
 */
@Command(name = "soak", mixinStandardHelpOptions = true,
        description = "For --duration: create communicators, run random collectives with exact checks, destroy them, again.")
final class SoakCommand implements Callable<Integer> {
    private static final int INT = Integer.BYTES;

    @Mixin
    RankOptions ranks = new RankOptions();

    @Option(names = "--duration", defaultValue = "PT2M", description = "how long (ISO-8601, default ${DEFAULT-VALUE})")
    Duration duration;

    @Option(names = "--ops", defaultValue = "20", description = "collectives per communicator (default ${DEFAULT-VALUE})")
    int ops;

    @Option(names = "--max-count", defaultValue = "262144",
            description = "largest count of int32 elements per rank (default ${DEFAULT-VALUE}); sizes are log-uniform")
    int maxCount;

    @Option(names = "--seed", defaultValue = "1", description = "the random sequence (same on every rank)")
    long seed;

    @Override
    public Integer call() {
        if (ranks.threads != null) {
            System.err.println("nccl4j soak: runs on rank JVMs (--nranks), which scripts/soak watches from outside");
            return 2;
        }
        if (!RankOptions.underLauncher()) {
            if (ranks.timeout.compareTo(duration.plusMinutes(5)) < 0) {
                ranks.timeout = duration.plusMinutes(5);
            }
            List<String> args = new ArrayList<>(List.of("soak", "--duration", duration.toString(), "--ops",
                    Integer.toString(ops), "--max-count", Integer.toString(maxCount), "--seed", Long.toString(seed)));
            args.addAll(ranks.childOptions());
            return RankLauncher.launch(ranks.nranks == null ? 2 : ranks.nranks, args, ranks);
        }
        try (Communicator parent = Nccl.commInitFromEnv(ranks.config(new DeviceOption(), 1, System.out))) {
            return soak(parent);
        } catch (NcclException e) {
            System.err.println("nccl4j soak: " + e.getMessage());
            return 2;
        }
    }

    private int soak(Communicator parent) {
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        long nextReport = start;
        long comms = 0;
        long collectives = 0;
        for (int round = 0; !timeIsUp(parent, end); round++) {
            Random rnd = new Random(seed * 1_000_003 + round);
            // Every rank draws the same numbers: the same split, the same collectives.
            boolean halves = parent.count() >= 4 && rnd.nextBoolean();
            int key = rnd.nextBoolean() ? parent.userRank() : -parent.userRank();
            try (Communicator c = parent.split(halves ? parent.userRank() % 2 : 0, key);
                 Arena arena = Arena.ofShared()) {
                Stream s = c.defaultStream();
                for (int i = 0; i < ops; i++) {
                    String wrong = collective(c, s, arena, rnd, round * ops + i);
                    if (wrong != null) {
                        System.err.println("nccl4j soak: round " + round + " collective " + i + " on rank "
                                + c.userRank() + " of " + c.count() + ": " + wrong);
                        return 3;
                    }
                    collectives++;
                }
            }
            comms++;
            if (System.nanoTime() >= nextReport) {
                System.out.printf("soak rank %d: %d s, %d communicators, %d collectives%n", parent.userRank(),
                        Duration.ofNanos(System.nanoTime() - start).toSeconds(), comms, collectives);
                nextReport += Duration.ofSeconds(30).toNanos();
            }
        }
        System.out.printf("soak rank %d: done, %d communicators, %d collectives, every result exact%n",
                parent.userRank(), comms, collectives);
        return 0;
    }

    /** @return whether any rank's time is up: all ranks stop after the same round */
    private static boolean timeIsUp(Communicator parent, long end) {
        int[] up = {System.nanoTime() >= end ? 1 : 0};
        parent.allReduce(up, RedOp.MAX);
        return up[0] == 1;
    }

    /** Runs one random collective on int32 data and checks every element; @return what is wrong, or null */
    private String collective(Communicator c, Stream s, Arena arena, Random rnd, int salt) {
        int n = c.count();
        int me = c.userRank();
        int count = (int) Math.min(maxCount, Math.pow(maxCount, rnd.nextDouble())); // 1 .. maxCount, log-uniform
        int root = rnd.nextInt(n);
        int kind = rnd.nextInt(5);
        int sendCount = kind == 4 ? count * n : count;
        int recvCount = kind == 3 ? count * n : count;
        MemorySegment send = arena.allocate((long) sendCount * INT);
        MemorySegment recv = arena.allocate((long) recvCount * INT);
        for (int i = 0; i < sendCount; i++) {
            send.setAtIndex(ValueLayout.JAVA_INT, i, value(me, i, salt));
        }
        String name = switch (kind) {
            case 0 -> {
                c.allReduce(send, recv, count, DataType.INT32, RedOp.SUM, s).await();
                yield "AllReduce";
            }
            case 1 -> {
                c.broadcast(send, recv, count, DataType.INT32, root, s).await();
                yield "Broadcast";
            }
            case 2 -> {
                c.reduce(send, recv, count, DataType.INT32, RedOp.SUM, root, s).await();
                yield "Reduce";
            }
            case 3 -> {
                c.allGather(send, recv, count, DataType.INT32, s).await();
                yield "AllGather";
            }
            default -> {
                c.reduceScatter(send, recv, count, DataType.INT32, RedOp.SUM, s).await();
                yield "ReduceScatter";
            }
        };
        if (kind == 2 && me != root) {
            return null; // only the root's buffer is defined
        }
        for (int i = 0; i < recvCount; i++) {
            int want = switch (kind) {
                case 0, 2 -> sum(n, i, salt);
                case 1 -> value(root, i, salt);
                case 3 -> value(i / count, i % count, salt);
                default -> sum(n, me * count + i, salt);
            };
            int got = recv.getAtIndex(ValueLayout.JAVA_INT, i);
            if (got != want) {
                return String.format("%s of %d int32 (root %d): element %d is %d, expected %d", name, count, root, i,
                        got, want);
            }
        }
        return null;
    }

    private static int value(int rank, int i, int salt) {
        return (rank * 7919 + i * 31 + salt) % 100_003;
    }

    private static int sum(int n, int i, int salt) {
        int s = 0;
        for (int r = 0; r < n; r++) {
            s += value(r, i, salt);
        }
        return s;
    }
}
