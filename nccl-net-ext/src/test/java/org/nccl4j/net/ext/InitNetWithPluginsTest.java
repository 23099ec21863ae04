package org.nccl4j.net.ext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.diag.Doctor;
import org.nccl4j.core.net.InitNet;
import org.nccl4j.core.net.NetSelection;
import org.nccl4j.core.param.Config;
import org.nccl4j.net.spi.NetProvider;

/** nccl4j's initNet and doctor with native plugins: NCCL_NET matching and the reasons they show. */
class InitNetWithPluginsTest {
    private static Config config(Map<String, String> env) {
        return Config.of(new Properties(), env, Path.of("/nonexistent/nccl.conf"));
    }

    @Test
    void serviceLoaderFindsTheProviderFirst() {
        List<NetProvider> providers = InitNet.providers();
        assertTrue(providers.stream().anyMatch(p -> p instanceof ExtNetProvider), providers.toString());
        assertEquals(ExtNetProvider.PRIORITY, providers.get(0).priority());
    }

    @Test
    void ncclNetSelectsThePluginByItsOwnName() {
        List<NetProvider> providers = List.of(new ExtNetProvider("nccl4j-missing"), new ExtNetProvider(Fixtures.library("fixture")));
        NetSelection s = InitNet.choose(config(Map.of("NCCL_NET", "Fixture")), "Fixture", providers);
        assertEquals("Fixture", s.net().name());
        assertTrue(s.candidates().get(0).status().contains("skipped: NCCL_NET=Fixture; Plugin load (libnccl-net-nccl4j-missing.so) "
                + "failed: libnccl-net-nccl4j-missing.so: cannot open shared object file"), s.candidates().toString());
        assertTrue(s.candidates().get(1).status().startsWith("chosen"), s.candidates().toString());
    }

    @Test
    void unknownNcclNetListsThePluginReasons() {
        List<NetProvider> providers = List.of(new ExtNetProvider("nccl4j-missing"), new ExtNetProvider(Fixtures.library("fixture")),
                new ExtNetProvider(Fixtures.library("nosym")));
        // NcclException (nccl-api): not importable from this module's patched test compilation.
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> InitNet.choose(config(Map.of("NCCL_NET", "bogus")), "bogus", providers));
        assertTrue(e.getClass().getName().startsWith("org.nccl4j.Nccl"), e.toString());
        String m = e.getMessage();
        assertTrue(m.contains("cannot open shared object file"), m);
        assertTrue(m.contains("Fixture (skipped: NCCL_NET=bogus; Fixture (ncclNetPlugin_v10 in "), m);
        assertTrue(m.contains("no ncclNetPlugin symbol in "), m);
    }

    @Test
    void failingPluginFallsBackToTheNextCandidate() {
        List<NetProvider> providers = List.of(new ExtNetProvider(Fixtures.library("initfail")),
                new ExtNetProvider(Fixtures.library("fixture")));
        NetSelection s = InitNet.choose(config(Map.of()), null, providers);
        assertEquals("Fixture", s.net().name());
        assertTrue(s.candidates().get(0).status().contains("refused: InitFail (ncclNetPlugin_v8 in ")
                && s.candidates().get(0).status().contains("init returned ncclInternalError (3)"), s.candidates().toString());
    }

    @Test
    void doctorShowsThePluginSearch() {
        String text = doctor(Fixtures.library("fixture"));
        assertTrue(text.contains("NCCL_NET_PLUGIN=" + Fixtures.library("fixture") + "; libraries tried:"), text);
        assertTrue(text.contains("ncclNetPlugin symbols: v10 v8 v4, using v10; plugin name \"Fixture\""), text);
        // Device count: one per up IPv4 interface, which other tests' network namespaces may add.
        assertTrue(text.matches("(?s).*Fixture +priority  100  chosen, \\d+ devices?\n.*"), text);
    }

    @Test
    void doctorSaysWhyAV3PluginIsNotUsed() {
        String lib = Fixtures.library("fixture-v3");
        List<String> report = doctor(lib).lines().toList();
        assertTrue(report.contains("      ncclNetPlugin_v3 found, not used: NCCL 2.10 loads only ncclNetPlugin_v4 (nccl4j v4 to v10); "
                + "v3's flush blocks and returns no request, v4 replaced it with iflush"), String.join("\n", report));
        // Nothing else on this module's test class path: initNet fails and says why the plugin was refused.
        assertTrue(report.stream().anyMatch(l -> l.startsWith("  error: network (any) not found; candidates: [NetPlugin (refused: "
                + "no ncclNetPlugin symbol in " + lib + " (looked for ncclNetPlugin_v10 down to ncclNetPlugin_v4; found only v3))]")),
                String.join("\n", report));
    }

    /** {@code nccl4j doctor}'s report with {@code -Dnccl.net.plugin=plugin} (the provider ServiceLoader finds reads it). */
    private static String doctor(String plugin) {
        String old = System.getProperty("nccl.net.plugin");
        System.setProperty("nccl.net.plugin", plugin);
        try {
            Properties props = new Properties();
            props.setProperty("nccl.net.plugin", plugin);
            String text = String.join("\n", Doctor.report(Config.of(props, Map.of(), Path.of("/nonexistent/nccl.conf"))));
            System.out.println(text);
            return text;
        } finally {
            if (old == null) {
                System.clearProperty("nccl.net.plugin");
            } else {
                System.setProperty("nccl.net.plugin", old);
            }
        }
    }
}
