package org.nccl4j.core.param;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nccl4j.CommConfig;
import org.nccl4j.NcclUsageException;
import org.nccl4j.Result;

class ConfigTest {
    @TempDir
    Path dir;

    private Config config(Properties props, Map<String, String> env, String userFile, String etcFile) throws IOException {
        Path user = dir.resolve("user.conf");
        Path etc = dir.resolve("etc.conf");
        Files.writeString(user, userFile);
        Files.writeString(etc, etcFile);
        return new Config(Map.of(), props, env, ConfFile.read(user), ConfFile.read(etc));
    }

    @Test
    void precedenceExplicitPropertyEnvUserSystemDefault() throws IOException {
        Properties props = new Properties();
        props.setProperty("nccl.socket.ifname", "prop");
        Map<String, String> env = Map.of("NCCL_SOCKET_IFNAME", "env", "NCCL_NET", "envnet", "NCCL_SOCKET_FAMILY", "AF_INET");
        Config c = config(props, env, "NCCL_SOCKET_IFNAME=user\nNCCL_NET=usernet\nNCCL_COMM_ID=user:1\nNCCL_HOSTID=userhost\n",
                "NCCL_SOCKET_IFNAME=etc\nNCCL_COMM_ID=etc:1\nNCCL_HOSTID=etchost\nNCCL_DEBUG=INFO\n");
        Config explicit = c.with(CommConfig.builder().param("NCCL_SOCKET_IFNAME", "explicit").build());

        assertEquals("explicit", explicit.string(Params.SOCKET_IFNAME));
        assertEquals(Source.EXPLICIT, explicit.setting(Params.SOCKET_IFNAME).source());
        assertEquals("prop", c.string(Params.SOCKET_IFNAME));
        assertEquals(Source.SYSTEM_PROPERTY, c.setting(Params.SOCKET_IFNAME).source());
        assertEquals("envnet", c.string(Params.NET));
        assertEquals(Source.ENVIRONMENT, c.setting(Params.NET).source());
        assertEquals("user:1", c.string(Params.COMM_ID));
        assertEquals(Source.USER_FILE, c.setting(Params.COMM_ID).source());
        assertEquals("INFO", c.string(Params.DEBUG));
        assertEquals(Source.SYSTEM_FILE, c.setting(Params.DEBUG).source());
        assertNull(c.string(Params.DEBUG_FILE));
        assertEquals("INIT", c.string(Params.DEBUG_SUBSYS));
        assertEquals(Source.DEFAULT, c.setting(Params.DEBUG_SUBSYS).source());
    }

    @Test
    void explicitAcceptsPropertyNames() throws IOException {
        Config c = config(new Properties(), Map.of(), "", "")
                .with(CommConfig.builder().param("nccl.net", "Socket").build());
        assertEquals("Socket", c.string(Params.NET));
    }

    @Test
    void explicitUnknownNameIsRefused() throws IOException {
        Config base = config(new Properties(), Map.of(), "", "");
        NcclUsageException e = assertThrows(NcclUsageException.class,
                () -> base.with(CommConfig.builder().param("NCCL_NO_SUCH_THING", "1").build()));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        assertTrue(e.getMessage().contains("NCCL_NO_SUCH_THING"));
    }

    @Test
    void emptyEnvironmentValueIsUnset() throws IOException {
        Config c = config(new Properties(), Map.of("NCCL_NET", ""), "", "");
        assertNull(c.string(Params.NET));
    }

    @Test
    void confFileSyntax() throws IOException {
        Path f = dir.resolve("x.conf");
        Files.writeString(f, "# comment\nNCCL_A=1=2\r\nnoequals\n=novalue\nNCCL_B=\nNCCL_A=second\n");
        ConfFile c = ConfFile.read(f);
        assertEquals(Map.of("NCCL_A", "1=2", "NCCL_B", ""), c.entries());
        assertTrue(ConfFile.read(dir.resolve("missing")).entries().isEmpty());
    }

    @Test
    void confFileEnvReplacesUserFile() throws IOException {
        Path f = dir.resolve("custom.conf");
        Files.writeString(f, "NCCL_NET=fromcustom\n");
        Files.writeString(dir.resolve(".nccl.conf"), "NCCL_NET=fromhome\n");
        Config home = Config.of(new Properties(), Map.of("HOME", dir.toString()), dir.resolve("none"));
        assertEquals("fromhome", home.string(Params.NET));
        Config custom = Config.of(new Properties(), Map.of("HOME", dir.toString(), "NCCL_CONF_FILE", f.toString()),
                dir.resolve("none"));
        assertEquals("fromcustom", custom.string(Params.NET));
    }

    @Test
    void integersParseLikeStrtollBaseZero() throws IOException {
        assertEquals(12, IntParser.parse("X", "12"));
        assertEquals(-2, IntParser.parse("X", "-2"));
        assertEquals(255, IntParser.parse("X", "0xff"));
        assertEquals(8, IntParser.parse("X", "010"));
        assertEquals(0, IntParser.parse("X", "0"));
        assertEquals(7, IntParser.parse("X", " 7 "));
        Config c = config(new Properties(), Map.of("NCCL_IB_DISABLE", "0x1", "NCCL_SOCKET_NTHREADS", "abc"), "", "");
        assertEquals(1, c.integer(Params.IB_DISABLE));
        assertTrue(c.flag(Params.IB_DISABLE));
        NcclUsageException e = assertThrows(NcclUsageException.class, () -> c.integer(Params.SOCKET_NTHREADS));
        assertTrue(e.getMessage().contains("NCCL_SOCKET_NTHREADS=abc"), e.getMessage());
        assertThrows(NcclUsageException.class, () -> IntParser.parse("X", "12abc"));
        assertThrows(NcclUsageException.class, () -> IntParser.parse("X", "018"));
        assertThrows(NcclUsageException.class, () -> IntParser.parse("X", "99999999999999999999"));
    }

    @Test
    void registryHasUniqueNamesAndPropertyForms() {
        assertTrue(Params.all().size() > 10);
        for (Param p : Params.all()) {
            assertEquals(p, Params.find(p.envName()));
            assertEquals(p.envName().toLowerCase().replace('_', '.'), p.propertyName());
        }
        assertThrows(NcclUsageException.class, () -> Params.require("NCCL_BOGUS"));
    }
}
