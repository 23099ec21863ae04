package org.nccl4j.net.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetLogger;

/**
 * {@link IbNet#init} against the real libibverbs of this machine (or its absence). None of the
 * project's machines has an RDMA device, so init must fail with the reason.
 */
class IbNetInitTest {
    /** @return whether libibverbs loads here (package libibverbs1) */
    static boolean libibverbsInstalled() {
        try {
            Verbs.load();
            return true;
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /** @return whether the kernel lists no RDMA device */
    static boolean noRdmaDevice() throws IOException {
        Path dir = Path.of("/sys/class/infiniband");
        if (!Files.isDirectory(dir)) {
            return true;
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isEmpty();
        }
    }

    @Test
    void initOnThisMachineFailsWithTheReason() throws Exception {
        assumeTrue(noRdmaDevice(), "this machine has RDMA devices under /sys/class/infiniband; "
                + "the test asserts the no-device path");
        TestContext ctx = new TestContext(Map.of());
        IbNet net = new IbNet();
        NetException e = assertThrows(NetException.class, () -> net.init(ctx));
        assertEquals(NetException.Kind.SYSTEM, e.kind());
        if (libibverbsInstalled() || !Files.isDirectory(Path.of("/sys/class/infiniband_verbs"))) {
            assertTrue(e.getMessage().startsWith("no active IB/RoCE port found (0 devices seen"), e.getMessage());
            assertTrue(ctx.logged(NetLogger.INFO, "NET/IB : No device found."), ctx.lines().toString());
        } else {
            assertTrue(e.getMessage().startsWith("libibverbs not found: "), e.getMessage());
            assertTrue(ctx.logged(NetLogger.INFO, "Failed to open libibverbs.so[.1]"), ctx.lines().toString());
        }
        NetException notInit = assertThrows(NetException.class, net::devices);
        assertEquals(NetException.Kind.INVALID_USAGE, notInit.kind());
        net.shutdown();
    }

    @Test
    void realBindingListsNoDevice() throws Exception {
        assumeTrue(libibverbsInstalled(), "libibverbs1 is not installed: the binding cannot load (the "
                + "'library not found' path is asserted by initOnThisMachineFailsWithTheReason)");
        assumeTrue(noRdmaDevice(), "this machine has RDMA devices");
        Verbs verbs = Verbs.load();
        assertTrue(List.of("ibverbs", "libibverbs.so.1").contains(verbs.libraryName()));
        try (Verbs.DeviceList list = verbs.deviceList()) {
            assertEquals(0, list.count());
        } catch (Verbs.VerbsException e) {
            // ibv_get_device_list returned NULL: also "no device", reported with its errno.
            assertTrue(e.getMessage().startsWith("ibv_get_device_list failed: errno"), e.getMessage());
        }
    }

    /** @return a sysfs root whose kernel exposes RDMA devices to libibverbs ({@code class/infiniband_verbs}) */
    private static Path sysWithVerbs(Path dir) throws IOException {
        Files.createDirectories(dir.resolve("class").resolve("infiniband_verbs"));
        return dir;
    }

    @Test
    void missingLibraryIsReportedWithTheLoaderMessage(@TempDir Path sys) throws IOException {
        TestContext ctx = new TestContext(Map.of());
        IbNet net = new IbNet(sysWithVerbs(sys), () -> Verbs.load(List.of("nccl4j_no_such_verbs")));
        NetException e = assertThrows(NetException.class, () -> net.init(ctx));
        assertEquals(NetException.Kind.SYSTEM, e.kind());
        assertTrue(e.getMessage().startsWith("libibverbs not found: nccl4j_no_such_verbs: "), e.getMessage());
        assertTrue(e.getCause() instanceof UnsatisfiedLinkError);
        assertTrue(ctx.logged(NetLogger.INFO, "Failed to open libibverbs.so[.1]"));
    }

    @Test
    void disableWinsBeforeAnythingNativeIsTouched() {
        for (String value : List.of("1", "2", "0x1")) {
            AtomicBoolean loaded = new AtomicBoolean();
            IbNet net = new IbNet(Path.of("/sys"), () -> {
                loaded.set(true);
                return Verbs.load();
            });
            NetException e = assertThrows(NetException.class,
                    () -> net.init(new TestContext(Map.of("NCCL_IB_DISABLE", value))));
            assertEquals(NetException.Kind.SYSTEM, e.kind());
            assertEquals("IB disabled by NCCL_IB_DISABLE=" + value, e.getMessage());
            assertFalse(loaded.get(), "libibverbs must not be loaded when IB is disabled");
        }
    }

    @Test
    void withoutTheKernelsVerbsDirectoryLibibverbsIsNotLoaded(@TempDir Path sys) throws IOException {
        AtomicBoolean loaded = new AtomicBoolean();
        Files.createDirectories(sys.resolve("class").resolve("infiniband"));
        IbNet net = new IbNet(sys, () -> {
            loaded.set(true);
            return Verbs.load();
        });
        TestContext ctx = new TestContext(Map.of());
        NetException e = assertThrows(NetException.class, () -> net.init(ctx));
        assertEquals(NetException.Kind.SYSTEM, e.kind());
        assertEquals("no active IB/RoCE port found (0 devices seen; " + sys.resolve("class/infiniband_verbs")
                + " is absent: the kernel exposes no RDMA device; libibverbs not loaded)", e.getMessage());
        assertTrue(ctx.logged(NetLogger.INFO, "NET/IB : No device found."), ctx.lines().toString());
        assertFalse(loaded.get(), "libibverbs bound although the kernel exposes no RDMA device");
        // With the directory, init goes on to bind the library (here one that is not there).
        IbNet withVerbs = new IbNet(sysWithVerbs(sys), () -> {
            loaded.set(true);
            return Verbs.load(List.of("nccl4j_no_such_verbs"));
        });
        NetException noLib = assertThrows(NetException.class, () -> withVerbs.init(new TestContext(Map.of())));
        assertTrue(noLib.getMessage().startsWith("libibverbs not found: nccl4j_no_such_verbs: "), noLib.getMessage());
        assertTrue(loaded.get());
    }

    @Test
    void disableZeroDoesNotDisable() throws Exception {
        assumeTrue(noRdmaDevice(), "this machine has RDMA devices");
        NetException e = assertThrows(NetException.class,
                () -> new IbNet().init(new TestContext(Map.of("NCCL_IB_DISABLE", "0"))));
        assertFalse(e.getMessage().contains("NCCL_IB_DISABLE"), e.getMessage());
    }

    @Test
    void garbageDisableValueIsRefused() {
        NetException e = assertThrows(NetException.class,
                () -> new IbNet().init(new TestContext(Map.of("NCCL_IB_DISABLE", "yes"))));
        assertEquals(NetException.Kind.INVALID_ARGUMENT, e.kind());
        assertEquals("NCCL_IB_DISABLE=yes is not an integer", e.getMessage());
    }

    @Test
    void hcaSettingIsLoggedAndDoesNotBreakInit() throws Exception {
        assumeTrue(noRdmaDevice(), "this machine has RDMA devices");
        TestContext ctx = new TestContext(Map.of("NCCL_IB_HCA", "^=mlx5_9"));
        NetException e = assertThrows(NetException.class, () -> new IbNet().init(ctx));
        assertEquals(NetException.Kind.SYSTEM, e.kind());
    }

    @Test
    void foundPortsAreRefusedForDataWithWhatWasFound() {
        // What init throws once discovery kept ports (no RDMA port exists here to reach it live).
        NetException e = IbNet.noDataPath("[0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ; OOB eth0:10.0.0.1<0>");
        assertEquals(NetException.Kind.SYSTEM, e.kind());
        assertEquals("found [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ; OOB eth0:10.0.0.1<0> but the IB data path is not "
                + "ported yet, so IB is not used (initNet falls back to Socket)", e.getMessage());
    }

    @Test
    void dataPathIsNotThereYet() {
        IbNet net = new IbNet();
        MemorySegment seg = MemorySegment.ofArray(new byte[8]);
        List<Executable> calls = List.of(
                () -> net.listen(0, new byte[IbNet.HANDLE_MAXSIZE]),
                () -> net.connect(0, new byte[IbNet.HANDLE_MAXSIZE]),
                () -> net.accept(null),
                () -> net.regMr(null, seg, IbNet.PTR_HOST),
                () -> net.deregMr(null, null),
                () -> net.isend(null, seg, null),
                () -> net.irecv(null, seg, null),
                () -> net.iflush(null, seg, null),
                () -> net.test(null),
                () -> net.closeSend(null),
                () -> net.closeRecv(null),
                () -> net.closeListen(null));
        for (Executable call : calls) {
            NetException e = assertThrows(NetException.class, call);
            assertEquals(NetException.Kind.INVALID_USAGE, e.kind());
            assertEquals(IbNet.DATA_PATH_PENDING, e.getMessage());
            assertTrue(e.getMessage().endsWith("use NCCL_NET=Socket"));
        }
    }

    @Test
    void pciPathMergesFunctionsOfOneNic(@TempDir Path sys) throws IOException {
        Path fn1 = Files.createDirectories(sys.resolve("devices/pci0000:00/0000:00:02.0/0000:03:00.1"));
        Path ib = Files.createDirectories(sys.resolve("class/infiniband/mlx5_1"));
        Files.createSymbolicLink(ib.resolve("device"), fn1);
        String expected = fn1.toRealPath().toString();
        expected = expected.substring(0, expected.length() - 1) + "0";
        assertEquals(expected, IbNet.pciPath(sys, "mlx5_1"));
        assertTrue(IbNet.pciPath(sys, "mlx5_1").endsWith("/0000:03:00.0"));
        assertNull(IbNet.pciPath(sys, "mlx5_7"), "no sysfs entry: no path");
    }

    @Test
    void gdrNeedsThePeerMemoryModule(@TempDir Path sys) throws IOException {
        assertFalse(IbNet.gdrSupport(sys));
        Path nvPeermem = Files.createDirectories(sys.resolve("kernel/mm/memory_peers/nvidia-peermem"));
        Files.writeString(nvPeermem.resolve("version"), "1.0\n");
        assertTrue(IbNet.gdrSupport(sys));
    }

    @Test
    void legacyNvMemModuleAlsoCounts(@TempDir Path sys) throws IOException {
        Path nvMem = Files.createDirectories(sys.resolve("kernel/mm/memory_peers/nv_mem"));
        Files.writeString(nvMem.resolve("version"), "1.1\n");
        assertTrue(IbNet.gdrSupport(sys));
    }

    @Test
    void facadeSaysWhy() throws Exception {
        assumeTrue(noRdmaDevice(), "this machine has RDMA devices");
        assertFalse(IbVerbs.isAvailable());
        Throwable cause = IbVerbs.unavailabilityCause();
        assertTrue(cause instanceof NetException, String.valueOf(cause));
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, IbVerbs::ensureAvailability);
        assertEquals(cause, e.getCause());
        assertTrue(e.getMessage().contains(cause.getMessage()));
    }

    @Test
    void facadeProbeHonoursTheKillSwitch() {
        NetException e = IbVerbs.probe(new TestContext(Map.of("NCCL_IB_DISABLE", "1")));
        assertEquals("IB disabled by NCCL_IB_DISABLE=1", e.getMessage());
    }
}
