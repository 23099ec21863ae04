package org.nccl4j.examples.perf;

import java.util.List;
import org.nccl4j.RedOp;

/**
 * What {@code nccl4j perf} measures and how, nccl-tests' command line as data.
 *
 * @param coll        the collective
 * @param minBytes    first size ({@code -b})
 * @param maxBytes    last size ({@code -e})
 * @param stepBytes   additive step ({@code -i}), used when {@code stepFactor} is 1
 * @param stepFactor  multiplicative step ({@code -f}), used when more than 1
 * @param iters       timed iterations per size ({@code -n})
 * @param warmupIters warm-up iterations at the largest and the smallest size ({@code -w})
 * @param check       checked iterations per size and placement, 0 for none ({@code -c})
 * @param ops         reductions to run ({@code -o}; {@code all} is every one)
 * @param types       element types to run ({@code -d}; {@code all} is every one)
 * @param root        root of Broadcast and Reduce ({@code -r})
 * @param blocking    {@code -z}: 0 enqueues the timed calls and waits once; 1 waits and barriers after
 *                    every operation (nccl-tests'); 2 makes blocking calls back to back, as an MPI
 *                    program does (AllReduce on host memory through the blocking form, which runs on
 *                    the calling thread; the others enqueue and wait for each)
 * @param average     how times combine over ranks ({@code -a}): 0 rank 0's, 1 the mean, 2 the
 *                    minimum, 3 the maximum
 * @param computeNanos {@code --compute-us}: a compute step this long on each rank before each timed
 *                    call, as a training loop makes them (0: calls back to back); needs {@code -z 2}
 * @param nThreads    ranks per process, for the preamble ({@code nThread})
 * @param onDevice    whether the buffers are the communicator's device memory ({@code --device cuda})
 *                    rather than host memory
 * @param localRegister {@code -R}: 1 (host memory only) allocates the buffers with {@code Nccl.memAlloc},
 *                    which the rank JVMs of a host read in place; 0 with an ordinary arena
 */
public record PerfSettings(Collective coll, long minBytes, long maxBytes, long stepBytes, long stepFactor, int iters,
                           int warmupIters, int check, List<RedOp> ops, List<ElementType> types, int root,
                           int blocking, int average, long computeNanos, int nThreads, boolean onDevice,
                           int localRegister) {
    /**
     * Checks the values nccl-tests would refuse or loop forever on.
     *
     * @throws IllegalArgumentException naming the bad value
     */
    public PerfSettings {
        ops = List.copyOf(ops);
        types = List.copyOf(types);
        if (localRegister < 0 || localRegister > 1) {
            throw new IllegalArgumentException("-R " + localRegister + ": 0 or 1");
        }
        if (blocking < 0 || blocking > 2) {
            throw new IllegalArgumentException("-z " + blocking + ": 0, 1 or 2");
        }
        if (minBytes < 0 || maxBytes < minBytes) {
            throw new IllegalArgumentException("invalid sizes for 'minbytes' and 'maxbytes': " + minBytes + " > "
                    + maxBytes);
        }
        if (stepFactor <= 1 && stepBytes <= 0 && maxBytes > minBytes) {
            throw new IllegalArgumentException("stepbytes must be positive when stepfactor is 1");
        }
        if (stepFactor > 1 && minBytes == 0 && maxBytes > 0) {
            throw new IllegalArgumentException("minbytes 0 never grows with a step factor: use -b 1 or more");
        }
        if (iters < 1 || warmupIters < 0 || check < 0) {
            throw new IllegalArgumentException("iters must be at least 1, warmup_iters and check at least 0");
        }
        if (computeNanos < 0 || computeNanos > 0 && blocking != 2) {
            throw new IllegalArgumentException("--compute-us " + computeNanos / 1000 + ": at least 0, and it times "
                    + "blocking calls: add -z 2");
        }
        if (average < 0 || average > 3) {
            throw new IllegalArgumentException("average must be 0 (rank 0), 1 (mean), 2 (min) or 3 (max)");
        }
    }

    /**
     * @param size the current size
     * @return the next size of the sweep, as nccl-tests' loop
     */
    public long next(long size) {
        return stepFactor > 1 ? size * stepFactor : size + stepBytes;
    }

    /**
     * nccl-tests' {@code -o} names.
     *
     * @param name {@code sum prod max min avg} or {@code all}, any case
     * @return the reductions it names
     * @throws IllegalArgumentException for an unknown name
     */
    public static List<RedOp> parseOps(String name) {
        String n = name.toLowerCase(java.util.Locale.ROOT);
        if (n.equals("all")) {
            return List.of(RedOp.values());
        }
        for (RedOp op : RedOp.values()) {
            if (op.name().toLowerCase(java.util.Locale.ROOT).equals(n)) {
                return List.of(op);
            }
        }
        throw new IllegalArgumentException("unknown reduction '" + name + "': use sum, prod, max, min, avg or all");
    }

    /**
     * nccl-tests' {@code parsesize}: a number with an optional K, M or G suffix (powers of 1024).
     *
     * @param text e.g. {@code 8}, {@code 1K}, {@code 64M}, {@code 1.5G}
     * @return bytes
     * @throws IllegalArgumentException if it is not a size
     */
    public static long parseSize(String text) {
        String t = text.strip();
        long unit = 1;
        if (!t.isEmpty()) {
            switch (Character.toUpperCase(t.charAt(t.length() - 1))) {
                case 'K' -> unit = 1L << 10;
                case 'M' -> unit = 1L << 20;
                case 'G' -> unit = 1L << 30;
                default -> unit = 1;
            }
        }
        String number = unit == 1 ? t : t.substring(0, t.length() - 1).strip();
        try {
            double v = Double.parseDouble(number);
            if (v < 0 || Double.isNaN(v)) {
                throw new NumberFormatException();
            }
            return (long) (v * unit);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid size '" + text + "': a number of bytes with an optional K, M or G");
        }
    }
}
