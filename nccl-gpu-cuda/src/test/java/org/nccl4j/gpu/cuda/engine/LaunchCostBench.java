package org.nccl4j.gpu.cuda.engine;

import java.util.List;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.DataType;
import org.nccl4j.DeviceBuffer;
import org.nccl4j.Nccl;
import org.nccl4j.RedOp;
import org.nccl4j.gpu.cuda.driver.CudaContext;
import org.nccl4j.gpu.cuda.driver.CudaDriver;

/**
 * Where a small call's microseconds go: each driver step of a 1-rank 8-byte AllReduce timed on
 * its own, back to back (mean of 10,000 after 1,000 warm-up), then the whole call.
 */
public final class LaunchCostBench {
    private static final int N = 10_000;

    private LaunchCostBench() {
    }

    public static void main(String[] args) throws Exception {
        List<Communicator> comms = Nccl.commInitAll(1, CommConfig.builder().param("NCCL4J_DEVICE", "cuda").build());
        Communicator c = comms.get(0);
        CudaContext ctx = CudaDriver.load().primaryContext(0);
        DeviceBuffer a = c.allocate(64);
        DeviceBuffer b = c.allocate(64);
        long stream = c.defaultStream().handle();
        time("eventCreate + eventDestroy", () -> ctx.eventDestroy(ctx.eventCreate(false)));
        long ev = ctx.eventCreate(false);
        time("eventRecord + eventQuery until done", () -> {
            ctx.eventRecord(ev, stream);
            while (!ctx.eventQuery(ev)) {
                Thread.onSpinWait();
            }
        });
        time("copyDtoD 8 B async + record + query until done", () -> {
            ctx.copyDtoD(b.address(), a.address(), 8, stream);
            ctx.eventRecord(ev, stream);
            while (!ctx.eventQuery(ev)) {
                Thread.onSpinWait();
            }
        });
        time("streamQuery", () -> ctx.streamQuery(stream));
        time("allReduce 8 B (1 rank) + await", () -> c.allReduce(a, b, 2, DataType.FLOAT32, RedOp.SUM, c.defaultStream())
                .await());
        List<Communicator> two = Nccl.commInitAll(2, CommConfig.builder().param("NCCL4J_DEVICE", "cuda")
                .param("NCCL4J_SHARED_DEVICE", "1").param("NCCL4J_CUDA_DEVICE", "0").build());
        DeviceBuffer x = two.get(0).allocate(64);
        DeviceBuffer y = two.get(1).allocate(64);
        time("allReduce 8 B (2 ranks, 2 launches) + await both", () -> {
            var d0 = two.get(0).allReduce(x, x, 2, DataType.FLOAT32, RedOp.SUM, two.get(0).defaultStream());
            var d1 = two.get(1).allReduce(y, y, 2, DataType.FLOAT32, RedOp.SUM, two.get(1).defaultStream());
            d0.await();
            d1.await();
        });
        time("launch only (2 ranks, no wait), per pair", () -> {
            two.get(0).allReduce(x, x, 2, DataType.FLOAT32, RedOp.SUM, two.get(0).defaultStream());
            two.get(1).allReduce(y, y, 2, DataType.FLOAT32, RedOp.SUM, two.get(1).defaultStream());
        });
        two.get(0).defaultStream().synchronize();
        two.get(1).defaultStream().synchronize();
        two.forEach(Communicator::close);
        c.close();
    }

    private static void time(String what, Runnable r) {
        for (int i = 0; i < 1000; i++) {
            r.run();
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < N; i++) {
            r.run();
        }
        System.out.printf("%-55s %8.2f us%n", what, (System.nanoTime() - t0) / 1e3 / N);
    }
}
