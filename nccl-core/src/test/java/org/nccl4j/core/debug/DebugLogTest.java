package org.nccl4j.core.debug;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.host.HostIdentity;

class DebugLogTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String[] lines() {
        return bytes.toString(StandardCharsets.UTF_8).split("\n", -1);
    }

    @Test
    void infoLineFormat() {
        DebugLog log = new DebugLog(Level.INFO, Subsys.INIT, out, null);
        DebugLog.setThreadDevice(3);
        log.info(Subsys.INIT, "hello %d", 42);
        String host = LogFormat.shortHost(HostIdentity.hostname());
        String expected = host + ":" + ProcessHandle.current().pid() + ":" + Thread.currentThread().threadId()
                + " [3] NCCL INFO hello 42";
        assertEquals(expected, lines()[0]);
        DebugLog.setThreadDevice(0);
    }

    @Test
    void warnLineHasLeadingNewlineAndCallSite() {
        DebugLog log = new DebugLog(Level.WARN, Subsys.INIT, out, null);
        log.warn("bad %s", "thing");
        String[] l = lines();
        assertEquals("", l[0]);
        assertTrue(l[1].matches(".*:\\d+:\\d+ \\[\\d+\\] DebugLogTest\\.java:\\d+ NCCL WARN bad thing"), l[1]);
    }

    @Test
    void traceLineHasTimeAndSite() {
        DebugLog log = new DebugLog(Level.TRACE, Subsys.ALL, out, null);
        log.trace(Subsys.NET, "t");
        assertTrue(lines()[0].matches(".*\\[\\d+\\] \\d+\\.\\d{6} DebugLogTest\\.java:\\d+ NCCL TRACE t"), lines()[0]);
    }

    @Test
    void levelAndSubsystemFilter() {
        DebugLog log = new DebugLog(Level.INFO, Subsys.parse("NET,GRAPH"), out, null);
        log.info(Subsys.INIT, "no");
        log.info(Subsys.NET, "yes-net");
        log.info(Subsys.INIT | Subsys.GRAPH, "yes-graph");
        log.trace(Subsys.NET, "no-trace");
        log.warn("yes-warn");
        String all = bytes.toString(StandardCharsets.UTF_8);
        assertFalse(all.contains(" no"));
        assertTrue(all.contains("yes-net"));
        assertTrue(all.contains("yes-graph"));
        assertFalse(all.contains("no-trace"));
        assertTrue(all.contains("yes-warn"));
        DebugLog none = new DebugLog(Level.NONE, Subsys.ALL, out, null);
        assertFalse(none.enabled(Level.WARN, Subsys.ALL));
    }

    @Test
    void subsystemParsing() {
        assertEquals(Subsys.INIT, Subsys.parse(null));
        assertEquals(Subsys.INIT | Subsys.NET, Subsys.parse("init,Net"));
        assertEquals(~(Subsys.NET | Subsys.COLL), Subsys.parse("^NET,COLL"));
        assertEquals(Subsys.ALL, Subsys.parse("ALL"));
        assertEquals(Subsys.CALL | Subsys.ALLOC, Subsys.parse("CALL,ALLOC,UNKNOWN"));
        assertEquals(Subsys.TUNING | Subsys.ENV | Subsys.P2P | Subsys.SHM, Subsys.parse("TUNING,ENV,P2P,SHM"));
    }

    @Test
    void levelParsing() {
        assertEquals(Level.NONE, Level.parse(null));
        assertEquals(Level.INFO, Level.parse("info"));
        assertEquals(Level.VERSION, Level.parse("VERSION"));
        assertEquals(Level.ABORT, Level.parse("abort"));
        assertEquals(Level.TRACE, Level.parse("TRACE"));
        assertEquals(Level.NONE, Level.parse("loud"));
    }

    @Test
    void fileNamePattern() {
        assertEquals("/tmp/nccl.h1.42.%x.%.log", LogFormat.expandFileName("/tmp/nccl.%h.%p.%x.%%.log", "h1", 42));
        assertEquals("node1", LogFormat.shortHost("node1.cluster.local"));
    }

    @Test
    void routesToSystemLogger() {
        List<String> got = new ArrayList<>();
        System.Logger sink = new System.Logger() {
            @Override
            public String getName() {
                return "org.nccl4j";
            }

            @Override
            public boolean isLoggable(Level level) {
                return true;
            }

            @Override
            public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
                got.add(level + " " + msg);
            }

            @Override
            public void log(Level level, ResourceBundle bundle, String format, Object... params) {
                got.add(level + " " + format);
            }
        };
        DebugLog log = new DebugLog(Level.NONE, Subsys.INIT | Subsys.NET, out, sink);
        log.info(Subsys.NET, "routed %s", "x");
        log.warn("warned");
        log.info(Subsys.GRAPH, "filtered");
        assertEquals(List.of("INFO routed x", "WARNING warned"), got);
        assertEquals("", bytes.toString(StandardCharsets.UTF_8));
    }
}
