package org.nccl4j.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nccl4j.NcclException;
import org.nccl4j.NcclUsageException;
import org.nccl4j.Result;
import org.nccl4j.UniqueId;

class BootstrapIdTest {
    private static final Duration LIMIT = Duration.ofSeconds(10);

    private static NcclException refused(UniqueId id) {
        return assertThrows(NcclUsageException.class, () -> BootstrapId.decode(id));
    }

    /** Rewrites the checksum so a test reaches the field checks behind it. */
    private static UniqueId resealed(byte[] bytes) {
        ByteBuffer.wrap(bytes).putInt(BootstrapId.OFF_CHECKSUM, BootstrapId.checksum(bytes));
        return UniqueId.fromBytes(bytes);
    }

    @Test
    void ipv4RoundTrip() {
        assertTimeoutPreemptively(LIMIT, () -> {
            BootstrapId id = new BootstrapId(new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 29500),
                    0x1234_5678_9abc_def0L, false);
            UniqueId uid = id.toUniqueId();
            byte[] b = uid.toBytes();
            assertEquals(UniqueId.BYTES, b.length);
            assertEquals("NCCL4JID", new String(b, 0, 8, java.nio.charset.StandardCharsets.US_ASCII));
            // NCCL's sockaddr_in at offset 20: family 2 little-endian, port big-endian, address.
            assertArrayEquals(new byte[] {2, 0, (byte) (29500 >> 8), (byte) 29500, 10, 1, 2, 3},
                    java.util.Arrays.copyOfRange(b, 20, 28));
            assertEquals(id, BootstrapId.decode(uid));
            assertEquals(id, BootstrapId.decode(UniqueId.parse(uid.toString())));
            BootstrapId env = new BootstrapId(id.root(), -1L, true);
            assertEquals(env, BootstrapId.decode(env.toUniqueId()));
            assertTrue(BootstrapId.decode(env.toUniqueId()).fromCommId());
        });
    }

    @Test
    void ipv6RoundTrip() {
        assertTimeoutPreemptively(LIMIT, () -> {
            BootstrapId id = new BootstrapId(new InetSocketAddress(InetAddress.getByName("::1"), 5555), 42L, false);
            BootstrapId back = BootstrapId.decode(id.toUniqueId());
            assertEquals(id, back);
            assertTrue(back.root().getAddress() instanceof Inet6Address);
            assertEquals(10, id.toUniqueId().toBytes()[20]); // AF_INET6, little-endian
            Inet6Address scoped = Inet6Address.getByAddress(null, InetAddress.getByName("fe80::1").getAddress(), 3);
            BootstrapId s = new BootstrapId(new InetSocketAddress(scoped, 80), 7L, true);
            BootstrapId sb = BootstrapId.decode(s.toUniqueId());
            assertEquals(3, ((Inet6Address) sb.root().getAddress()).getScopeId());
            assertEquals(s.nonce(), sb.nonce());
        });
    }

    @Test
    void refusesNull() {
        NcclException e = assertThrows(NcclUsageException.class, () -> BootstrapId.decode(null));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        assertTrue(e.getMessage().contains("null"));
        assertTrue(e.hint() != null);
    }

    @Test
    void refusesForeignIds() {
        byte[] random = new byte[UniqueId.BYTES];
        new Random(1).nextBytes(random);
        NcclException e = refused(UniqueId.fromBytes(random));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        assertTrue(e.getMessage().contains("not an nccl4j id"), e.getMessage());
        assertTrue(e.hint().contains("unchanged"), e.hint());

        e = refused(UniqueId.fromBytes(new byte[UniqueId.BYTES]));
        assertTrue(e.getMessage().contains("all zero"), e.getMessage());

        // What C NCCL 2.10's ncclGetUniqueId writes: a bare sockaddr_in, zero-padded.
        byte[] c = new byte[UniqueId.BYTES];
        c[0] = 2;
        c[2] = 0x73;
        c[3] = 0x3c;
        c[4] = 10;
        c[7] = 1;
        e = refused(UniqueId.fromBytes(c));
        assertTrue(e.getMessage().contains("C NCCL"), e.getMessage());
    }

    @Test
    void refusesStaleIds() {
        byte[] b = new BootstrapId(BootstrapHarness.loopback(1234), 5L, false).toUniqueId().toBytes();
        ByteBuffer.wrap(b).putShort(BootstrapId.OFF_VERSION, (short) 2);
        NcclException e = refused(resealed(b));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        assertTrue(e.getMessage().contains("format version 2"), e.getMessage());
        assertTrue(e.getMessage().contains("stale"), e.getMessage());
    }

    @Test
    void refusesCorruptIds() {
        byte[] good = new BootstrapId(BootstrapHarness.loopback(1234), 5L, false).toUniqueId().toBytes();

        byte[] flipped = good.clone();
        flipped[25] ^= 1; // one address bit
        NcclException e = refused(UniqueId.fromBytes(flipped));
        assertTrue(e.getMessage().contains("corrupt") && e.getMessage().contains("checksum"), e.getMessage());

        byte[] family = good.clone();
        family[BootstrapId.OFF_ADDR] = 7;
        e = refused(resealed(family));
        assertTrue(e.getMessage().contains("unknown address family 7"), e.getMessage());

        byte[] port = good.clone();
        port[BootstrapId.OFF_ADDR + 2] = 0;
        port[BootstrapId.OFF_ADDR + 3] = 0;
        e = refused(resealed(port));
        assertTrue(e.getMessage().contains("port 0"), e.getMessage());

        byte[] padding = good.clone();
        padding[100] = 1;
        e = refused(resealed(padding));
        assertTrue(e.getMessage().contains("padding"), e.getMessage());

        byte[] v4padding = good.clone();
        v4padding[BootstrapId.OFF_ADDR + 10] = 1;
        e = refused(resealed(v4padding));
        assertTrue(e.getMessage().contains("padding"), e.getMessage());

        byte[] flags = good.clone();
        flags[BootstrapId.OFF_FLAGS] = (byte) 0x80;
        e = refused(resealed(flags));
        assertTrue(e.getMessage().contains("flags"), e.getMessage());
    }

    @Test
    void refusesBadRecordFields() {
        assertThrows(NcclUsageException.class, () -> new BootstrapId(null, 1, false));
        assertThrows(NcclUsageException.class, () -> new BootstrapId(InetSocketAddress.createUnresolved("x", 1), 1, false));
        assertThrows(NcclUsageException.class, () -> new BootstrapId(BootstrapHarness.loopback(0), 1, false));
    }

    @Test
    void parsesCommIdForms() {
        assertTimeoutPreemptively(LIMIT, () -> {
            BootstrapId v4 = BootstrapId.fromCommId("127.0.0.1:29500");
            assertEquals(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 29500), v4.root());
            assertTrue(v4.fromCommId());
            assertTrue(v4.root().getAddress() instanceof Inet4Address);

            BootstrapId v6 = BootstrapId.fromCommId("[::1]:29501");
            assertEquals(new InetSocketAddress(InetAddress.getByName("::1"), 29501), v6.root());

            BootstrapId scoped = BootstrapId.fromCommId("[fe80::1%1]:2000");
            assertEquals(1, ((Inet6Address) scoped.root().getAddress()).getScopeId());
            BootstrapId named = BootstrapId.fromCommId("[fe80::1%lo]:2000");
            assertEquals(java.net.NetworkInterface.getByName("lo").getIndex(),
                    ((Inet6Address) named.root().getAddress()).getScopeId());

            BootstrapId host = BootstrapId.fromCommId(" localhost:65535 ");
            assertTrue(host.root().getAddress().isLoopbackAddress());
            assertEquals(65535, host.root().getPort());

            // Every rank given the same text agrees on the nonce; other text gives another one.
            assertEquals(v4.nonce(), BootstrapId.fromCommId("127.0.0.1:29500").nonce());
            assertNotEquals(v4.nonce(), BootstrapId.fromCommId("127.0.0.1:29501").nonce());
            assertEquals(v4, BootstrapId.decode(v4.toUniqueId()));
            assertFalse(v4.toString().isEmpty());
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  ", "127.0.0.1", "127.0.0.1:", ":29500", "127.0.0.1:0", "127.0.0.1:70000",
        "127.0.0.1:abc", "127.0.0.1:-5", "[::1]", "[::1:80", "[::1]80", "::1:80", "300.1.1.1:80", "[zz::1]:80",
        "[127.0.0.1]:80", "[fe80::1%]:80", "[fe80::1%nosuchif0]:80", "no-such-host.invalid:80"})
    void refusesBadCommIds(String text) {
        assertTimeoutPreemptively(LIMIT, () -> {
            NcclException e = assertThrows(NcclUsageException.class, () -> BootstrapId.fromCommId(text));
            assertEquals(Result.INVALID_ARGUMENT, e.result());
            assertTrue(e.getMessage().contains(
                    "Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>"),
                    e.getMessage());
        });
        assertThrows(NcclUsageException.class, () -> BootstrapId.fromCommId(null));
    }
}
