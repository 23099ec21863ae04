package org.nccl4j.core.device.gpu.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.DataType;
import org.nccl4j.Nccl;
import org.nccl4j.RedOp;
import org.nccl4j.core.device.gpu.suite.CollectivesGpuSuite.Coll;

/**
 * The transports on ranks sharing the GPU as threads: P2P by default and in read mode, SHM and NET, every protocol and
 * algorithm and Send/Recv matching the host backend byte for byte. SHM ({@code NCCL_P2P_DISABLE=1}):
 * every connection's FIFOs and control words lie in registered {@code /dev/shm} segments that the
 * kernels reach across the bus; the segments are mapped while the communicators live, their names
 * are gone once every peer has mapped them, and destroy unmaps them. NET (SHM disabled too): the
 * ranks connect through the Socket network, each rank's proxy thread moving the steps between
 * pinned host FIFOs; the proxies run while the communicators live and are gone after destroy.
 */
@Tag("gpu")
public abstract class TransportsGpuSuite extends GpuSuite {
    private static final String SEGMENT = "/dev/shm/nccl4j-gpu-";
    private static final long[] COUNTS = {0, 1, 7, 1009, 100_003};

    protected TransportsGpuSuite(GpuTarget target) {
        super(target);
    }

    /** The transports under test, by the parameters that select them. */
    private enum Via {
        SHM("NCCL_P2P_DISABLE", "1"), NET("NCCL_P2P_DISABLE", "1", "NCCL_SHM_DISABLE", "1"),
        P2P_READ("NCCL_P2P_READ_ENABLE", "1"),
        GDR("NCCL_P2P_DISABLE", "1", "NCCL_SHM_DISABLE", "1", "NCCL_NET_GDR_LEVEL", "SYS", "NCCL_NET_GDR_READ", "1");

        private final String[] params;

        Via(String... params) {
            this.params = params;
        }
    }

    private CommConfig config(String device, String algo, String proto, Via via) {
        CommConfig.Builder b = CommConfig.builder();
        for (int i = 0; i < via.params.length; i += 2) {
            b.param(via.params[i], via.params[i + 1]);
        }
        return b.param("NCCL4J_DEVICE", device).param("NCCL4J_SHARED_DEVICE", "1").param(target.deviceParam(), "0")
                .param("NCCL_MIN_NCHANNELS", "2").param("NCCL_MAX_NCHANNELS", "2")
                .param("NCCL_BUFFSIZE", "65536").param("NCCL_LL_BUFFSIZE", "65536")
                .param("NCCL_LL128_BUFFSIZE", "327680").param("NCCL_ALGO", algo).param("NCCL_PROTO", proto).build();
    }

    /** @return this process's mappings of the backend's SHM segments ({@code /proc/self/maps} lines) */
    private static long mappedSegments() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains(SEGMENT)).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the backend's segment names still in /dev/shm */
    private static List<Path> namedSegments() {
        try (Stream<Path> files = Files.list(Path.of("/dev/shm"))) {
            return files.filter(p -> p.toString().startsWith(SEGMENT)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the live proxy threads of communicators ({@code NCCLproxy <rank>}) */
    private static long proxyThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("NCCLproxy ")).count();
    }

    /**
     * Ranks of one process sharing the GPU reach each other by device pointers (P2P) unless told
     * otherwise, whatever the machine's PCI layout: no segment, no proxy, and the sums exact.
     */
    @Test
    void ranksSharingTheGpuInOneProcessConnectPeerToPeerByDefault() {
        long proxies = proxyThreads();
        CommConfig shared = CommConfig.builder().param("NCCL4J_DEVICE", target.backend()).param("NCCL4J_SHARED_DEVICE", "1").param(target.deviceParam(), "0").build();
        List<Communicator> gpu = Nccl.commInitAll(4, shared);
        List<Communicator> host = List.of();
        try (Arena arena = Arena.ofShared()) {
            assertEquals(0, mappedSegments(), "no /dev/shm segment: not SHM");
            assertEquals(proxies, proxyThreads(), "no proxy thread: not NET");
            host = Nccl.commInitAll(4, CommConfig.builder().param("NCCL4J_DEVICE", "host").build());
            // Integer sums: exact in any order, as the host ranks' own channels and chunks may differ.
            CollectivesGpuSuite.check(gpu, host, arena, Coll.ALL_REDUCE, DataType.INT32, RedOp.SUM, 1_000_003,
                    false, 5);
        } finally {
            gpu.forEach(Communicator::close);
            host.forEach(Communicator::close);
        }
    }

    @Test
    void everyProtocolAndAlgorithmOverShmMatchesTheHostBackendExactly() {
        assertEquals(0, mappedSegments(), "no segment mapped before the test");
        everyPlan(Via.SHM, n -> {
            assertTrue(mappedSegments() >= n, "every rank's connections in a mapped /dev/shm segment");
            assertEquals(List.of(), namedSegments(), "names removed once every peer mapped them");
        }, () -> assertEquals(0, mappedSegments(), "destroy unmaps every segment"));
    }

    @Test
    void everyProtocolAndAlgorithmOverTheNetworkMatchesTheHostBackendExactly() {
        long before = proxyThreads();
        everyPlan(Via.NET, n -> {
            assertEquals(0, mappedSegments(), "no /dev/shm segment: NET only");
            assertEquals(before + n, proxyThreads(), "a proxy thread per rank");
        }, () -> assertEquals(before, proxyThreads(), "destroy stops every proxy thread"));
    }

    /**
     * P2P in NCCL's read mode ({@code NCCL_P2P_READ_ENABLE=1}): each Simple FIFO lies in its
     * sender's memory and the receiver reads it; LL and LL128 stay in the receiver's.
     */
    @Test
    void everyProtocolAndAlgorithmInP2pReadModeMatchesTheHostBackendExactly() {
        long proxies = proxyThreads();
        everyPlan(Via.P2P_READ, n -> {
            assertEquals(0, mappedSegments(), "no /dev/shm segment: P2P");
            assertEquals(proxies, proxyThreads(), "no proxy thread: P2P");
        }, () -> { });
    }

    /**
     * GPU Direct RDMA ({@code NCCL_NET_GDR_LEVEL=SYS}, {@code NCCL_NET_GDR_READ=1}) through
     * nccl-net-ext's test plugin that takes the GPU's memory ({@link GpuTarget#gdrPlugin}: it
     * stages each message through host memory, as no RDMA NIC is here): the probe finds the GPU
     * capable, the send ends' LL128 and Simple FIFOs and every receive FIFO lie in GPU memory,
     * registered as {@code NCCL_PTR_CUDA}, the proxies trust LL128 tails and flush Simple receives,
     * and every plan still matches the host backend byte for byte. (The connection lines say
     * {@code /GDRDMA}: examples' {@code RankJvmsGpuTest} reads them.)
     */
    @Test
    void everyProtocolAndAlgorithmWithGpuDirectRdmaMatchesTheHostBackendExactly() {
        String file = target.gdrPlugin();
        assumeTrue(file != null, "no test net plugin takes " + target.backend() + " memory");
        String dir = System.getProperty("nccl4j.fixtures");
        Path plugin = dir == null ? null : Path.of(dir, file);
        assumeTrue(plugin != null && Files.isRegularFile(plugin),
                "nccl-net-ext's fixture plugin is not built (mvn -pl nccl-net-ext process-test-classes; nccl4j.fixtures="
                        + dir + ")");
        long before = proxyThreads();
        System.setProperty("nccl.net.plugin", plugin.toString());
        try {
            everyPlan(Via.GDR, n -> {
                assertEquals(0, mappedSegments(), "no /dev/shm segment: NET only");
                assertEquals(before + n, proxyThreads(), "a proxy thread per rank");
            }, () -> assertEquals(before, proxyThreads(), "destroy stops every proxy thread"));
        } finally {
            System.clearProperty("nccl.net.plugin");
        }
    }

    private void everyPlan(Via via, IntConsumer whileAlive, Runnable afterClose) {
        String[][] plans = {{"Ring", "Simple"}, {"Ring", "LL"}, {"Ring", "LL128"}, {"Tree", "Simple"}, {"Tree", "LL"}};
        for (String[] plan : plans) {
            for (int n : new int[] {2, 3}) {
                List<Communicator> gpu = Nccl.commInitAll(n, config(target.backend(), plan[0], plan[1], via));
                List<Communicator> host = List.of();
                try (Arena arena = Arena.ofShared()) {
                    whileAlive.accept(n);
                    host = Nccl.commInitAll(n, config("host", plan[0], plan[1], via));
                    int cases = 0;
                    boolean tree = plan[0].equals("Tree");
                    for (Coll coll : tree ? new Coll[] {Coll.ALL_REDUCE} : Coll.values()) {
                        boolean reduces = coll != Coll.BROADCAST && coll != Coll.ALL_GATHER;
                        Object[][] typeOps = reduces
                                ? new Object[][] {{DataType.FLOAT32, RedOp.SUM}, {DataType.INT8, RedOp.MAX},
                                    {DataType.BFLOAT16, RedOp.AVG}, {DataType.UINT64, RedOp.PROD}}
                                : new Object[][] {{DataType.FLOAT32, null}, {DataType.INT8, null}};
                        for (Object[] to : typeOps) {
                            for (long count : COUNTS) {
                                for (boolean inPlace : new boolean[] {false, true}) {
                                    CollectivesGpuSuite.check(gpu, host, arena, coll, (DataType) to[0],
                                            (RedOp) to[1], count, inPlace, n + 7 * cases);
                                    cases++;
                                }
                            }
                        }
                    }
                    if (!tree && plan[1].equals("Simple")) {
                        for (long count : COUNTS) {
                            SendRecvGpuSuite.pair(gpu, 0, n - 1, count, DataType.UINT8, count);
                            SendRecvGpuSuite.pair(gpu, n - 1, 0, count, DataType.FLOAT32, count + 1);
                            cases += 2;
                        }
                    }
                    System.out.println(target.backend() + " over " + via + " " + plan[0] + "/" + plan[1] + ", " + n
                            + " ranks: " + cases + " cases identical to the host backend");
                } finally {
                    gpu.forEach(Communicator::close);
                    host.forEach(Communicator::close);
                }
                afterClose.run();
            }
        }
    }
}
