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

/**
 * AllReduce (float32, sum, out of place) on ranks sharing the GPU, as nccl-tests reports it
 * (time per call from back-to-back launches, algbw, busbw = algbw * 2(n-1)/n), and for one rank
 * beside NCCL itself (the machine's libnccl through JavaCPP's preset, test scope only).
 * Arguments: max bytes (default 1 GiB), rank counts (default 1,2,4,8).
 */
public final class CudaAllReduceBench {
    private static final int WARMUP = 5;
    private static final int ITERS = 20;

    private CudaAllReduceBench() {
    }

    public static void main(String[] args) {
        long max = args.length > 0 ? Long.parseLong(args[0]) : 1L << 30;
        String[] ranks = (args.length > 1 ? args[1] : "1,2,4,8").split(",");
        for (String r : ranks) {
            int n = Integer.parseInt(r);
            CommConfig cfg = CommConfig.builder().param("NCCL4J_DEVICE", "cuda").param("NCCL4J_SHARED_DEVICE", "1")
                    .build();
            List<Communicator> comms = Nccl.commInitAll(n, cfg);
            System.out.printf("# nccl4j cuda AllReduce float sum, %d rank(s) sharing the GPU%n", n);
            System.out.printf("# %12s %10s %10s %10s%n", "size(B)", "time(us)", "algbw", "busbw");
            List<DeviceBuffer> send = new ArrayList<>();
            List<DeviceBuffer> recv = new ArrayList<>();
            for (Communicator c : comms) {
                send.add(c.allocate(max));
                recv.add(c.allocate(max));
            }
            for (long bytes = 8; bytes <= max; bytes *= 4) {
                long count = bytes / 4;
                for (int i = 0; i < WARMUP; i++) {
                    round(comms, send, recv, count);
                }
                long t0 = System.nanoTime();
                for (int i = 0; i < ITERS; i++) {
                    round(comms, send, recv, count);
                }
                double us = (System.nanoTime() - t0) / 1e3 / ITERS;
                double algbw = bytes / us / 1e3;
                System.out.printf("  %12d %10.2f %10.2f %10.2f%n", bytes, us, algbw, algbw * 2.0 * (n - 1) / n);
            }
            send.forEach(DeviceBuffer::close);
            recv.forEach(DeviceBuffer::close);
            comms.forEach(Communicator::close);
        }
        nccl(max);
    }

    /** One AllReduce per rank, launched back to back; waits for the last round only at the end. */
    private static void round(List<Communicator> comms, List<DeviceBuffer> send, List<DeviceBuffer> recv, long count) {
        List<Completion> done = new ArrayList<>(comms.size());
        for (int r = 0; r < comms.size(); r++) {
            Communicator c = comms.get(r);
            done.add(c.allReduce(send.get(r), recv.get(r), count, DataType.FLOAT32, RedOp.SUM, c.defaultStream()));
        }
        done.forEach(Completion::await);
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
            for (long bytes = 8; bytes <= max; bytes *= 4) {
                long count = bytes / 4;
                for (int i = 0; i < WARMUP + ITERS; i++) {
                    if (i == WARMUP) {
                        stream.synchronize();
                    }
                    check(org.bytedeco.cuda.global.nccl.ncclAllReduce(address(s.address()), address(r.address()), count,
                            org.bytedeco.cuda.global.nccl.ncclFloat, org.bytedeco.cuda.global.nccl.ncclSum, comm, cu),
                            "ncclAllReduce");
                }
                long t0 = System.nanoTime();
                for (int i = 0; i < ITERS; i++) {
                    check(org.bytedeco.cuda.global.nccl.ncclAllReduce(address(s.address()), address(r.address()), count,
                            org.bytedeco.cuda.global.nccl.ncclFloat, org.bytedeco.cuda.global.nccl.ncclSum, comm, cu),
                            "ncclAllReduce");
                    stream.synchronize();
                }
                double us = (System.nanoTime() - t0) / 1e3 / ITERS;
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
