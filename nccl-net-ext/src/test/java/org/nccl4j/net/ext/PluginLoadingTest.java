package org.nccl4j.net.ext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetLogger;
import org.nccl4j.net.spi.testkit.CommPair;
import org.nccl4j.net.spi.testkit.RequestDriver;
import org.nccl4j.net.spi.testkit.TestNetContext;

/** Finding, loading and refusing plugins: dlerror text, missing symbols, failing init, signal handlers. */
class PluginLoadingTest {
    /** A context recording level, subsystem and text of each line. */
    private static final class Recording implements NetContext {
        final List<String> lines = new CopyOnWriteArrayList<>();

        @Override
        public NetLogger logger() {
            return (level, subsystem, message) -> lines.add(level + " 0x" + Long.toHexString(subsystem) + " " + message);
        }

        @Override
        public String param(String ncclName) {
            return null;
        }

        boolean has(String fragment) {
            return lines.stream().anyMatch(l -> l.contains(fragment));
        }
    }

    @Test
    void libraryNamesResolveAsNcclDoes() {
        assertEquals(List.of("libnccl-net.so"), PluginLibrary.candidates(null));
        assertEquals(List.of("libnccl-net.so"), PluginLibrary.candidates(""));
        assertEquals(List.of("libnccl-net-aws-ofi.so"), PluginLibrary.candidates("aws-ofi"));
        assertEquals(List.of("/opt/x/libfoo.so"), PluginLibrary.candidates("/opt/x/libfoo.so"));
        assertEquals(List.of("./libnccl-net-x.so"), PluginLibrary.candidates("./libnccl-net-x.so"));
        assertEquals(List.of(), PluginLibrary.candidates("none"));
    }

    @Test
    void missingPluginReportsDlerror() {
        ExtNetProvider p = new ExtNetProvider("nccl4j-does-not-exist");
        assertEquals(ExtNetProvider.UNLOADED_NAME, p.name());
        assertFalse(p.loaded());
        assertEquals(ExtNetProvider.PRIORITY, p.priority());
        Net net = p.create();
        Recording ctx = new Recording();
        NetException e = assertThrows(NetException.class, () -> net.init(ctx));
        assertTrue(e.getMessage().contains("libnccl-net-nccl4j-does-not-exist.so"), e.getMessage());
        assertTrue(e.getMessage().contains("cannot open shared object file"), e.getMessage());
        assertTrue(ctx.has("3 0x11 NET/Plugin : Plugin load (libnccl-net-nccl4j-does-not-exist.so) failed: "
                + "libnccl-net-nccl4j-does-not-exist.so: cannot open shared object file"), ctx.lines.toString());
        String report = String.join("\n", p.describe());
        assertTrue(report.contains("libraries tried:\n  libnccl-net-nccl4j-does-not-exist.so: "), report);
    }

    @Test
    void missingPathReportsDlerror() {
        ExtNetProvider p = new ExtNetProvider("/nonexistent/dir/libnccl-net-x.so");
        NetException e = assertThrows(NetException.class, () -> p.create().init(new Recording()));
        assertTrue(e.getMessage().contains("/nonexistent/dir/libnccl-net-x.so: cannot open shared object file"), e.getMessage());
    }

    @Test
    void libraryWithoutSymbolIsRefused() {
        String lib = Fixtures.library("nosym");
        ExtNetProvider p = new ExtNetProvider(lib);
        assertEquals(ExtNetProvider.UNLOADED_NAME, p.name());
        Recording ctx = new Recording();
        NetException e = assertThrows(NetException.class, () -> p.create().init(ctx));
        assertTrue(e.getMessage().contains("no ncclNetPlugin symbol in " + lib), e.getMessage());
        assertTrue(ctx.has("no ncclNetPlugin symbol"), ctx.lines.toString());
        assertTrue(String.join("\n", p.describe()).contains(lib + ": loaded; ncclNetPlugin none"), String.join("\n", p.describe()));
    }

    @Test
    void olderSymbolsAreReportedAsNotUsed() {
        String v3 = Fixtures.library("fixture-v3");
        ExtNetProvider p3 = new ExtNetProvider(v3);
        assertEquals(ExtNetProvider.UNLOADED_NAME, p3.name());
        assertEquals(List.of("no ncclNetPlugin symbol in " + v3 + " (looked for ncclNetPlugin_v10 down to ncclNetPlugin_v4; found only v3)",
                "NCCL_NET_PLUGIN=" + v3 + "; libraries tried:",
                "  " + v3 + ": loaded; ncclNetPlugin v3, ncclCollNetPlugin none",
                "ncclNetPlugin_v3 found, not used: NCCL 2.10 loads only ncclNetPlugin_v4 (nccl4j v4 to v10); v3's flush blocks "
                        + "and returns no request, v4 replaced it with iflush"), p3.describe());
        Recording ctx = new Recording();
        NetException e = assertThrows(NetException.class, () -> p3.create().init(ctx));
        assertTrue(e.getMessage().contains("found only v3"), e.getMessage());
        assertTrue(ctx.has("NET/Plugin : ncclNetPlugin_v3 found, not used: NCCL 2.10 loads only ncclNetPlugin_v4"), ctx.lines.toString());

        // Beside v4, as plugins built for NCCL 2.4 to 2.9 export them: v4 is used, v3 and v2 are explained.
        String old = Fixtures.library("fixture-old");
        List<String> report = new ExtNetProvider(old).describe();
        assertEquals(List.of("  " + old + ": loaded; ncclNetPlugin v4 v3 v2, ncclCollNetPlugin none",
                "ncclNetPlugin_v3 found, not used: NCCL 2.10 loads only ncclNetPlugin_v4 (nccl4j v4 to v10); v3's flush blocks "
                        + "and returns no request, v4 replaced it with iflush",
                "ncclNetPlugin_v2 found, not used: NCCL 2.10 loads only ncclNetPlugin_v4 (nccl4j v4 to v10); v2 has pciPath "
                        + "and ptrSupport instead of getProperties, and v3's blocking flush",
                "ncclNetPlugin symbols: v4 v3 v2, using v4; plugin name \"Fixture\" (what NCCL_NET matches)"),
                report.subList(2, 6), String.join("\n", report));
    }

    @Test
    void failingInitIsReportedWithThePluginsWarning() {
        String lib = Fixtures.library("initfail");
        ExtNetProvider p = new ExtNetProvider(lib);
        assertEquals("InitFail", p.name());
        Recording ctx = new Recording();
        NetException e = assertThrows(NetException.class, () -> p.create().init(ctx));
        assertTrue(e.getMessage().contains("init returned ncclInternalError (3)"), e.getMessage());
        assertTrue(e.getMessage().contains("InitFail (ncclNetPlugin_v8 in " + lib + ")"), e.getMessage());
        // The plugin's WARN, formatted by the shim, at its level (2) and subsystem (NET = 0x10), with file:line.
        assertTrue(ctx.lines.stream().anyMatch(l -> l.startsWith("2 0x10 initfail.c:")
                && l.endsWith("NET/InitFail : init failed on purpose (test fixture, code 3)")), ctx.lines.toString());
        // Init runs once per process: a second attempt repeats the outcome without calling the plugin.
        Recording again = new Recording();
        NetException e2 = assertThrows(NetException.class, () -> p.create().init(again));
        assertEquals(e.getMessage(), e2.getMessage());
        assertFalse(again.has("init failed on purpose"), again.lines.toString());
        assertTrue(String.join("\n", p.describe()).contains("init failed: "), String.join("\n", p.describe()));
    }

    @Test
    void pluginReplacingSigsegvIsRefusedAndTheJvmSurvives() {
        long before = SignalGuard.handler(11);
        String lib = Fixtures.library("sigsegv");
        ExtNetProvider p = new ExtNetProvider(lib);
        assertEquals(ExtNetProvider.UNLOADED_NAME, p.name());
        assertEquals(before, SignalGuard.handler(11), "the JVM's SIGSEGV handler was restored");
        NetException e = assertThrows(NetException.class, () -> p.create().init(new Recording()));
        String m = e.getMessage();
        assertTrue(m.contains(lib) && m.contains("SIGSEGV"), m);
        assertTrue(m.contains("IPATH_NO_BACKTRACE=1"), m);
        assertTrue(m.contains("LD_PRELOAD=$JAVA_HOME/lib/libjsig.so"), m);
        // HotSpot's implicit null checks and safepoint polls fault on purpose; with the fixture's
        // handler in place (NCCL4J_FIXTURE_SIGSEGV_FATAL=1) the process would exit here.
        int caught = 0;
        for (int i = 0; i < 200_000; i++) {
            try {
                caught += lengthOf(i % 2 == 0 ? null : "x") - 1;
            } catch (NullPointerException npe) {
                caught++;
            }
        }
        System.gc();
        assertEquals(100_000, caught);
    }

    private static int lengthOf(String s) {
        return s.length();
    }

    @Test
    void pluginNameIsWhatNcclNetMatches() throws NetException {
        ExtNetProvider p = new ExtNetProvider(Fixtures.library("fixture"));
        assertEquals("Fixture", p.name());
        assertTrue(p.loaded());
        Net net = p.create();
        net.init(new TestNetContext(Map.of()));
        assertEquals("Fixture", net.name());
        assertTrue(net.devices() >= 1);
        String report = String.join("\n", p.describe());
        assertTrue(report.contains("ncclNetPlugin symbols: v10 v8 v4, using v10; plugin name \"Fixture\""), report);
        assertTrue(report.contains("ncclCollNetPlugin symbols: none"), report);
        assertTrue(report.lines().findFirst().orElseThrow().startsWith("Fixture (ncclNetPlugin_v10 in "), report);
    }

    @Test
    @SuppressWarnings("restricted")
    void oversizedMessagesAreRefusedWithAHint() throws Exception {
        Net net = new ExtNetProvider(Fixtures.library("fixture-v8")).create();
        net.init(new TestNetContext(Map.of()));
        CommPair pair = new RequestDriver(net, java.time.Duration.ofSeconds(30)).connect(0);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(4096);
            MemoryHandle h = net.regMr(pair.send(), buf, Net.PTR_HOST);
            // Never dereferenced: refused before the plugin sees it.
            MemorySegment huge = MemorySegment.ofAddress(buf.address()).reinterpret(3L << 30);
            NetException e = assertThrows(NetException.class, () -> net.isend(pair.send(), huge, h));
            assertEquals(NetException.Kind.INVALID_ARGUMENT, e.kind());
            assertTrue(e.getMessage().contains("ncclNetPlugin_v8 passes sizes as int") && e.getMessage().contains("Hint: "),
                    e.getMessage());
            // A buffer outside its registration never reaches the plugin either.
            MemorySegment other = arena.allocate(64);
            assertThrows(NetException.class, () -> net.isend(pair.send(), other, h));
            net.deregMr(pair.send(), h);
            assertThrows(NetException.class, () -> net.deregMr(pair.send(), h));
        } finally {
            net.closeSend(pair.send());
            net.closeRecv(pair.recv());
        }
        assertThrows(NetException.class, () -> net.closeSend(pair.send()), "double close");
        assertNotNull(net.name());
    }
}
