package org.nccl4j.gpu.cuda.engine;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.javacpp.Pointer;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.Completion;
import org.nccl4j.DataType;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.Nccl;
import org.nccl4j.RedOp;
import org.nccl4j.Stream;
import org.nccl4j.gpu.cuda.driver.CudaContext;
import org.nccl4j.gpu.cuda.driver.CudaDriver;

/**
 * AllReduce (float32, sum, out of place) as nccl-tests reports it (time per call, each call
 * awaited, algbw, busbw = algbw * 2(n-1)/n): first the device's copy ceiling, then one rank beside
 * NCCL itself (the machine's libnccl through JavaCPP's preset, test scope only), then ranks
 * sharing the GPU with the busbw their memory traffic allows at the copy ceiling beside it.
 * Every size is warmed up (the JIT compiles the launch path) before it is timed.
 * Arguments: max bytes (default 1 GiB), rank counts (default 1,2,4,8), NCCL_MIN_NCHANNELS values
 * for the shared ranks (default: the search's own choice only).
 */
public final class CudaAllReduceBench {
    private static final long WARM_NANOS = 300_000_000L;
    private static final long TIMED_NANOS = 300_000_000L;

    private CudaAllReduceBench() {
    }

    public static void main(String[] args) throws Exception {
        long max = args.length > 0 ? Long.parseLong(args[0]) : 1L << 30;
        String[] ranks = (args.length > 1 ? args[1] : "1,2,4,8").split(",");
        String[] channels = (args.length > 2 ? args[2] : "-2").split(",");
        double ceiling = copyCeiling(max);
        System.out.printf("# device-to-device copy of %d B: %.0f GB/s (bytes read + written)%n", max, ceiling);
        for (String r : ranks) {
            int n = Integer.parseInt(r);
            for (String ch : n == 1 ? new String[] {"-2"} : channels) {
                ours(n, ch, max, ceiling);
            }
        }
        nccl(max);
    }

    private static void ours(int n, String minChannels, long max, double ceiling) {
        CommConfig cfg = CommConfig.builder().param("NCCL4J_DEVICE", "cuda").param("NCCL4J_SHARED_DEVICE", "1").param("NCCL4J_CUDA_DEVICE", "0")
                .param("NCCL_MIN_NCHANNELS", minChannels).build();
        List<Communicator> comms = Nccl.commInitAll(n, cfg);
        // A ring AllReduce moves (6n-4) * bytes through device memory over all ranks (send, reduce,
        // copy, forward, receive steps each read and write S/n): the busbw that allows at the ceiling.
        double bound = n == 1 ? ceiling / 2 : ceiling * 2.0 * (n - 1) / (n * (6.0 * n - 4));
        System.out.printf("# nccl4j cuda AllReduce float sum, %d rank(s) sharing the GPU, NCCL_MIN_NCHANNELS %s;"
                + " busbw ceiling %.0f GB/s%n", n, minChannels, bound);
        System.out.printf("# %12s %10s %10s %10s %8s%n", "size(B)", "time(us)", "algbw", "busbw", "%ceil");
        List<DeviceBuffer> send = new ArrayList<>();
        List<DeviceBuffer> recv = new ArrayList<>();
        for (Communicator c : comms) {
            send.add(c.allocate(max));
            recv.add(c.allocate(max));
        }
        for (long bytes : sizes(max)) {
            long count = bytes / 4;
            double us = time(() -> round(comms, send, recv, count));
            double algbw = bytes / us / 1e3;
            double busbw = n == 1 ? algbw : algbw * 2.0 * (n - 1) / n;
            System.out.printf("  %12d %10.2f %10.2f %10.2f %8.1f%n", bytes, us, algbw, busbw, 100 * busbw / bound);
        }
        send.forEach(DeviceBuffer::close);
        recv.forEach(DeviceBuffer::close);
        comms.forEach(Communicator::close);
    }

    /** 8 B times 4 up to max, and max itself. */
    private static List<Long> sizes(long max) {
        List<Long> s = new ArrayList<>();
        for (long b = 8; b < max; b *= 4) {
            s.add(b);
        }
        s.add(max);
        return s;
    }

    /** Mean microseconds of {@code r} after a warm-up, over at least 5 runs and about 0.3 s. */
    private static double time(Runnable r) {
        long t0 = System.nanoTime();
        for (int i = 0; i < 5 || (System.nanoTime() - t0 < WARM_NANOS && i < 20_000); i++) {
            r.run();
        }
        int iters = 0;
        t0 = System.nanoTime();
        long t;
        do {
            r.run();
            iters++;
            t = System.nanoTime() - t0;
        } while (iters < 5 || (t < TIMED_NANOS && iters < 20_000));
        return t / 1e3 / iters;
    }

    /** One AllReduce per rank, launched back to back, then each awaited. */
    private static void round(List<Communicator> comms, List<DeviceBuffer> send, List<DeviceBuffer> recv, long count) {
        List<Completion> done = new ArrayList<>(comms.size());
        for (int r = 0; r < comms.size(); r++) {
            Communicator c = comms.get(r);
            done.add(c.allReduce(send.get(r), recv.get(r), count, DataType.FLOAT32, RedOp.SUM, c.defaultStream()));
        }
        done.forEach(Completion::await);
    }

    /** The driver's device-to-device copy of {@code bytes}: GB/s read plus written. */
    private static double copyCeiling(long bytes) throws Exception {
        CudaContext ctx = CudaDriver.load().primaryContext(0);
        long a = ctx.memAlloc(bytes);
        long b = ctx.memAlloc(bytes);
        long s = ctx.streamCreate();
        try {
            double us = time(() -> {
                ctx.copyDtoD(b, a, bytes, s);
                ctx.streamSynchronize(s);
            });
            return 2.0 * bytes / us / 1e3;
        } finally {
            ctx.streamDestroy(s);
            ctx.memFree(a);
            ctx.memFree(b);
        }
    }

    /** NCCL's own 1-rank AllReduce on the same GPU, same sizes and method. */
    private static void nccl(long max) {
        try {
            ncclComm comm = new ncclComm();
            check(org.bytedeco.cuda.global.nccl.ncclCommInitAll(comm, 1, new int[] {0}), "ncclCommInitAll");
            List<Communicator> ours = Nccl.commInitAll(1, CommConfig.builder().param("NCCL4J_DEVICE", "cuda").build());
            Communicator c = ours.get(0);
            DeviceBuffer s = c.allocate(max);
            DeviceBuffer r = c.allocate(max);
            Stream stream = c.createStream();
            CUstream_st cu = new CUstream_st(address(stream.handle()));
            System.out.printf("# NCCL %s AllReduce float sum, 1 rank%n", version());
            System.out.printf("# %12s %10s %10s%n", "size(B)", "time(us)", "algbw");
            Pointer sp = address(s.address());
            Pointer rp = address(r.address());
            for (long bytes : sizes(max)) {
                long count = bytes / 4;
                double us = time(() -> {
                    check(org.bytedeco.cuda.global.nccl.ncclAllReduce(sp, rp, count, org.bytedeco.cuda.global.nccl.ncclFloat,
                            org.bytedeco.cuda.global.nccl.ncclSum, comm, cu), "ncclAllReduce");
                    stream.synchronize();
                });
                System.out.printf("  %12d %10.2f %10.2f%n", bytes, us, bytes / us / 1e3);
            }
            org.bytedeco.cuda.global.nccl.ncclCommDestroy(comm);
            s.close();
            r.close();
            c.close();
        } catch (Throwable t) {
            System.out.println("# NCCL reference not run: " + t);
        }
    }

    private static String version() {
        int[] v = new int[1];
        org.bytedeco.cuda.global.nccl.ncclGetVersion(v);
        return Integer.toString(v[0]);
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " returned " + rc);
        }
    }

    /** A JavaCPP pointer at a raw address (no ownership). */
    private static Pointer address(long a) {
        return new Pointer() {
            {
                address = a;
            }
        };
    }
}
