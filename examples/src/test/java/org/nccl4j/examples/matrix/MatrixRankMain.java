package org.nccl4j.examples.matrix;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.nccl4j.Communicator;
import org.nccl4j.DataType;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.core.matrix.CollectiveCase;
import org.nccl4j.core.matrix.MatrixCases;

/**
 * What each rank JVM of the process tests runs (started by {@link org.nccl4j.core.launch.LocalLauncher},
 * so {@link Nccl#commInitFromEnv()} finds its rank, size and root in the environment).
 *
 * <ul>
 *   <li>{@code matrix <budget> [full] [verbose] [only=<coll>]}: runs {@link MatrixCases#cases(int, int)} (the CI
 *       sample of at most {@code budget} cases, or with {@code full} the whole product; with
 *       {@code only=allreduce} the sample of that collective alone), one case at a
 *       time on the default stream, and counts wrong output elements. Prints
 *       {@code case <i> <case> wrong <n>} for each failing case and finally
 *       {@code MATRIX rank <r> cases <k> wrong <total> in <ms> ms}. Exit 0 only if nothing was wrong.</li>
 *   <li>{@code loop <count> <iterations> <every>}: AllReduce SUM of {@code count} floats over and over,
 *       checking the first and last element, printing {@code LOOP rank <r> iteration <i>} every
 *       {@code every} iterations and {@code LOOP rank <r> done} at the end.</li>
 * </ul>
 *
 * <p>Exit codes: 0 success; 1 wrong results; 2 init failed ({@code INIT FAILED rank <r> <result> <message>});
 * 3 a collective failed ({@code FAILED rank <r> <result> <message>}, then the communicator is aborted and
 * {@code ABORTED rank <r> in <ms> ms} printed); 4 bad arguments.
 */
public final class MatrixRankMain {
    private MatrixRankMain() {
    }

    /**
     * @param args see the class comment
     */
    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: matrix <budget> [full] [verbose] | loop <count> <iterations> <every>");
            System.exit(4);
        }
        int rank = Integer.parseInt(System.getenv().getOrDefault("NCCL4J_RANK", "-1"));
        long t0 = System.nanoTime();
        Communicator comm;
        try {
            comm = Nccl.commInitFromEnv();
        } catch (NcclException e) {
            System.out.println("INIT FAILED rank " + rank + " " + e.result() + " " + e.getMessage());
            System.out.flush();
            System.exit(2);
            return;
        }
        rank = comm.userRank();
        System.out.println("INIT rank " + rank + " of " + comm.count() + " nodes " + comm.nodeCount() + " net "
                + comm.netName() + " in " + ms(t0) + " ms");
        int code;
        try {
            code = switch (args[0]) {
                case "matrix" -> matrix(comm, Integer.parseInt(args[1]), List.of(args).contains("full"),
                        List.of(args).contains("verbose"), List.of(args).stream().filter(a -> a.startsWith("only="))
                                .map(a -> a.substring(5)).findFirst().orElse(null));
                case "loop" -> loop(comm, Long.parseLong(args[1]), Long.parseLong(args[2]), Long.parseLong(args[3]));
                default -> {
                    System.err.println("unknown mode " + args[0]);
                    yield 4;
                }
            };
        } catch (NcclException e) {
            System.out.println("FAILED rank " + rank + " " + e.result() + " " + e.getMessage());
            System.out.flush();
            long a0 = System.nanoTime();
            comm.abort();
            System.out.println("ABORTED rank " + rank + " in " + ms(a0) + " ms");
            System.out.flush();
            System.exit(3);
            return;
        }
        if (code == 0) {
            comm.close();
        } else {
            comm.abort();
        }
        System.out.flush();
        System.exit(code);
    }

    private static int matrix(Communicator comm, int budget, boolean full, boolean verbose, String only) {
        if (full) {
            System.setProperty("nccl4j.matrix", "full");
        }
        int rank = comm.userRank();
        int nranks = comm.count();
        List<CollectiveCase> cases = only == null ? MatrixCases.cases(nranks, budget) : MatrixCases.cases(nranks, budget, only);
        long total = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < cases.size(); i++) {
            CollectiveCase c = cases.get(i);
            long c0 = System.nanoTime();
            long wrong;
            try (Arena arena = Arena.ofShared()) {
                CollectiveCase.RankBuffers b = c.buffers(arena, rank, nranks);
                b.enqueue(comm, comm.defaultStream()).await();
                wrong = b.wrong();
            } catch (NcclException e) {
                System.out.println("case " + i + " " + c + " FAILED " + e.result());
                throw e;
            }
            total += wrong;
            if (wrong != 0) {
                System.out.println("case " + i + " " + c + " wrong " + wrong);
            } else if (verbose) {
                System.out.println("case " + i + " " + c + " ok " + ms(c0) + " ms");
            }
        }
        System.out.println("MATRIX rank " + rank + " cases " + cases.size() + " wrong " + total + " in " + ms(t0) + " ms");
        return total == 0 ? 0 : 1;
    }

    private static int loop(Communicator comm, long count, long iterations, long every) {
        int rank = comm.userRank();
        int n = comm.count();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buf = arena.allocate(count * 4, 64);
            for (long it = 0; it < iterations; it++) {
                buf.set(ValueLayout.JAVA_FLOAT, 0, rank + 1);
                buf.setAtIndex(ValueLayout.JAVA_FLOAT, count - 1, rank + 1);
                comm.allReduce(buf, buf, count, DataType.FLOAT32, RedOp.SUM, comm.defaultStream()).await();
                float want = n * (n + 1) / 2f;
                if (buf.get(ValueLayout.JAVA_FLOAT, 0) != want || buf.getAtIndex(ValueLayout.JAVA_FLOAT, count - 1) != want) {
                    System.out.println("LOOP rank " + rank + " iteration " + it + " wrong: "
                            + buf.get(ValueLayout.JAVA_FLOAT, 0) + " " + buf.getAtIndex(ValueLayout.JAVA_FLOAT, count - 1)
                            + " want " + want);
                    return 1;
                }
                if (it % every == 0) {
                    System.out.println("LOOP rank " + rank + " iteration " + it);
                }
            }
        }
        System.out.println("LOOP rank " + rank + " done");
        return 0;
    }

    private static long ms(long since) {
        return (System.nanoTime() - since) / 1_000_000;
    }
}
