package org.nccl4j.net.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jnr.ffi.Runtime;
import jnr.ffi.Struct;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks the struct layouts the binding uses against the system's {@code infiniband/verbs.h}: a C
 * probe ({@code src/test/c/verbs_layout_probe.c}) is compiled with gcc into {@code target/} and
 * prints {@code offsetof}/{@code sizeof}; every value must equal what jnr-ffi computes for
 * {@link IbvDeviceAttr} and {@link IbvPortAttr}. Skipped only when the libibverbs-dev headers are
 * absent.
 */
class VerbsLayoutTest {
    private static final Path BASEDIR = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    private static final Path SOURCE = BASEDIR.resolve("src/test/c/verbs_layout_probe.c");
    private static final Path OUT_DIR = BASEDIR.resolve("target/native-probe");

    private static Map<String, Long> header;
    /** Why the layouts cannot be checked here, or {@code null}. */
    private static String skipReason;
    private static final Runtime RUNTIME = Runtime.getSystemRuntime();

    @BeforeAll
    static void compileAndRunProbe() throws IOException, InterruptedException {
        assertTrue(Files.isRegularFile(SOURCE), "probe source missing: " + SOURCE);
        Files.createDirectories(OUT_DIR);
        Path exe = OUT_DIR.resolve("verbs_layout_probe");
        Path log = OUT_DIR.resolve("gcc.log");
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-Wall", "-Wextra", "-Werror", "-o", exe.toString(), SOURCE.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            fail("gcc is needed to build the C layout probe (install build-essential): " + e.getMessage());
            return;
        }
        assertTrue(gcc.waitFor(120, TimeUnit.SECONDS), "gcc did not finish within 120 s");
        String gccOut = Files.readString(log);
        if (gcc.exitValue() != 0) {
            if (gccOut.contains("infiniband/verbs.h: No such file")) {
                // Reported by every test (an assumption failing in @BeforeAll is not counted).
                skipReason = "libibverbs-dev headers (infiniband/verbs.h) are absent; install libibverbs-dev "
                        + "to check the struct layouts. gcc said: " + gccOut.strip();
                return;
            }
            fail("gcc failed on " + SOURCE + ":\n" + gccOut);
        }
        Process probe = new ProcessBuilder(exe.toString()).redirectErrorStream(true).start();
        String out = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(probe.waitFor(30, TimeUnit.SECONDS), "probe did not finish");
        assertEquals(0, probe.exitValue(), "probe failed:\n" + out);
        Map<String, Long> values = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            if (!line.isBlank()) {
                String[] kv = line.strip().split(" ");
                values.put(kv[0], Long.parseLong(kv[1]));
            }
        }
        header = values;
    }

    private static long c(String key) {
        assumeTrue(skipReason == null, skipReason);
        Long v = header.get(key);
        assertNotNull(v, "probe printed no " + key);
        return v;
    }

    private static void same(String key, Struct.NumberField field) {
        assertEquals(c(key), field.offset(), key);
    }

    @Test
    void deviceAttrMatchesHeader() {
        IbvDeviceAttr a = new IbvDeviceAttr(RUNTIME);
        assertEquals(c("ibv_device_attr.sizeof"), Struct.size(a), "sizeof(struct ibv_device_attr)");
        assertEquals(c("ibv_device_attr.fw_ver"), a.fwVer.offset(), "fw_ver");
        same("ibv_device_attr.node_guid", a.nodeGuid);
        same("ibv_device_attr.sys_image_guid", a.sysImageGuid);
        same("ibv_device_attr.vendor_id", a.vendorId);
        same("ibv_device_attr.max_qp", a.maxQp);
        same("ibv_device_attr.atomic_cap", a.atomicCap);
        same("ibv_device_attr.max_pkeys", a.maxPkeys);
        same("ibv_device_attr.local_ca_ack_delay", a.localCaAckDelay);
        same("ibv_device_attr.phys_port_cnt", a.physPortCnt);
    }

    @Test
    void portAttrMatchesHeader() {
        IbvPortAttr p = new IbvPortAttr(RUNTIME);
        same("ibv_port_attr.state", p.state);
        same("ibv_port_attr.max_mtu", p.maxMtu);
        same("ibv_port_attr.active_mtu", p.activeMtu);
        same("ibv_port_attr.gid_tbl_len", p.gidTblLen);
        same("ibv_port_attr.pkey_tbl_len", p.pkeyTblLen);
        same("ibv_port_attr.lid", p.lid);
        same("ibv_port_attr.sm_lid", p.smLid);
        same("ibv_port_attr.active_width", p.activeWidth);
        same("ibv_port_attr.active_speed", p.activeSpeed);
        same("ibv_port_attr.phys_state", p.physState);
        same("ibv_port_attr.link_layer", p.linkLayer);
        same("ibv_port_attr.flags", p.flags);
    }

    @Test
    void portAttrIsTheCompatPrefix() {
        // The exported ibv_query_port writes sizeof(struct _compat_ibv_port_attr) bytes: the
        // header's ibv_port_attr up to and including flags, padded to its alignment.
        long align = c("ibv_port_attr.alignof");
        long compatSize = (c("ibv_port_attr.flags") + 1 + align - 1) / align * align;
        IbvPortAttr p = new IbvPortAttr(RUNTIME);
        assertEquals(compatSize, Struct.size(p), "IbvPortAttr must be exactly the compat layout");
        assertTrue(c("ibv_port_attr.sizeof") >= Struct.size(p));
        assertTrue(IbvPortAttr.ALLOCATION >= c("ibv_port_attr.sizeof"),
                "the query buffer must hold the header's full ibv_port_attr");
    }

    @Test
    void enumValuesMatchHeader() {
        assertEquals(c("enum.IBV_PORT_ACTIVE"), Verbs.IBV_PORT_ACTIVE);
        assertEquals(c("enum.IBV_LINK_LAYER_UNSPECIFIED"), Verbs.IBV_LINK_LAYER_UNSPECIFIED);
        assertEquals(c("enum.IBV_LINK_LAYER_INFINIBAND"), Verbs.IBV_LINK_LAYER_INFINIBAND);
        assertEquals(c("enum.IBV_LINK_LAYER_ETHERNET"), Verbs.IBV_LINK_LAYER_ETHERNET);
    }
}
