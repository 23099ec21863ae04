package org.nccl4j.core.bootstrap;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.zip.CRC32C;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.UniqueId;
import org.nccl4j.core.debug.Log;
import org.nccl4j.net.spi.iface.CommIdAddress;
import org.nccl4j.core.debug.Subsys;

/**
 * What a {@link UniqueId} holds: the bootstrap root's address, a random 64-bit communicator nonce
 * that every bootstrap connection of the communicator carries (so connections of other
 * communicators are refused), and whether the id came from {@code NCCL_COMM_ID} (then rank 0
 * starts the root itself, at that fixed address).
 *
 * <p>The 128 bytes (multi-byte fields big-endian unless said otherwise):
 * <pre>
 * offset size  field
 *      0    8  magic, ASCII "NCCL4JID" (0x4E43434C344A4944)
 *      8    2  format version ({@value #FORMAT_VERSION})
 *     10    1  flags: bit 0 = from NCCL_COMM_ID; other bits zero
 *     11    1  reserved, zero
 *     12    8  communicator nonce
 *     20   28  root address, NCCL's union socketAddress layout (see {@code SockAddr}):
 *              u16 family (LE: 2 = AF_INET, 10 = AF_INET6), u16 port (BE), then
 *              IPv4: 4-byte address + 20 zero bytes;
 *              IPv6: u32 flowinfo (0), 16-byte address, u32 scope id (LE)
 *     48   76  zero
 *    124    4  CRC-32C of bytes 0..123
 * </pre>
 * C NCCL 2.9/2.10 ids (a bare sockaddr, no magic) are recognised and refused with a message
 * saying so: nccl4j ranks do not interoperate with C NCCL ranks.
 *
 * @param root       the root's listening address (resolved, port 1..65535)
 * @param nonce      the communicator nonce
 * @param fromCommId whether the id was made from {@code NCCL_COMM_ID}
 */
public record BootstrapId(InetSocketAddress root, long nonce, boolean fromCommId) {
    /** Magic at the start of every nccl4j unique id: ASCII "NCCL4JID". */
    static final long MAGIC = 0x4E43434C344A4944L;
    /** Format version this code writes and reads. */
    static final int FORMAT_VERSION = 1;
    static final int OFF_VERSION = 8;
    static final int OFF_FLAGS = 10;
    static final int OFF_RESERVED = 11;
    static final int OFF_NONCE = 12;
    static final int OFF_ADDR = 20;
    static final int OFF_CHECKSUM = UniqueId.BYTES - 4;

    private static final String COMM_ID_FORMAT =
            "Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>";
    private static final String COMM_ID_HINT =
            "set NCCL_COMM_ID to the address and a free port of the host where rank 0 runs, e.g. 10.0.0.1:29500";
    private static final String PASS_UNCHANGED =
            "pass the 128 bytes rank 0 got from Nccl.getUniqueId() unchanged (UniqueId.toString()/UniqueId.parse())";
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * Validates the fields.
     *
     * @throws NcclException with {@link Result#INVALID_ARGUMENT} for a null, unresolved or port-0 root
     */
    public BootstrapId {
        if (root == null) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "bootstrap root address is null", null);
        }
        if (root.isUnresolved()) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "bootstrap root address " + root + " is not resolved",
                    "resolve the host name first");
        }
        if (root.getPort() == 0) {
            throw NcclException.of(Result.INVALID_ARGUMENT,
                    "bootstrap root address " + SockAddr.text(root) + " has port 0",
                    "use the address the root is bound to (BootstrapRoot.address())");
        }
    }

    /** @return a fresh random communicator nonce */
    public static long newNonce() {
        return RANDOM.nextLong();
    }

    /** @return the 128-byte unique id */
    public UniqueId toUniqueId() {
        ByteBuffer b = ByteBuffer.allocate(UniqueId.BYTES).order(ByteOrder.BIG_ENDIAN);
        b.putLong(MAGIC);
        b.putShort((short) FORMAT_VERSION);
        b.put((byte) (fromCommId ? 1 : 0));
        b.put((byte) 0);
        b.putLong(nonce);
        SockAddr.encode(root, b);
        byte[] bytes = b.array();
        b.putInt(OFF_CHECKSUM, checksum(bytes));
        return UniqueId.fromBytes(bytes);
    }

    static int checksum(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, OFF_CHECKSUM);
        return (int) crc.getValue();
    }

    /**
     * Reads a unique id.
     *
     * @param id the id every rank was given
     * @return what it holds
     * @throws NcclException with {@link Result#INVALID_ARGUMENT} for a null, foreign (bad magic),
     *     stale (other format version) or corrupt (bad checksum, flags, family, port or padding) id
     */
    public static BootstrapId decode(UniqueId id) {
        if (id == null) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "unique id is null",
                    "obtain one with Nccl.getUniqueId() on rank 0 and share it with every rank");
        }
        byte[] bytes = id.toBytes();
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        long magic = b.getLong(0);
        if (magic != MAGIC) {
            String what = looksLikeCNccl(bytes)
                    ? "unique id is a C NCCL 2.9/2.10 id (a bare socket address without magic), not an nccl4j id"
                    : allZero(bytes, 0, bytes.length)
                    ? "unique id is all zero bytes, not an nccl4j id"
                    : String.format("unique id is not an nccl4j id (foreign: magic 0x%016x instead of 0x%016x)", magic, MAGIC);
            throw NcclException.of(Result.INVALID_ARGUMENT, what,
                    "nccl4j ranks only join ids made by nccl4j; " + PASS_UNCHANGED);
        }
        int version = Short.toUnsignedInt(b.getShort(OFF_VERSION));
        if (version != FORMAT_VERSION) {
            throw NcclException.of(Result.INVALID_ARGUMENT,
                    "unique id has format version " + version + " but this nccl4j reads version " + FORMAT_VERSION
                            + " (stale id, or ranks running different nccl4j versions)",
                    "run the same nccl4j version on every rank and use an id made by it");
        }
        int stored = b.getInt(OFF_CHECKSUM);
        int computed = checksum(bytes);
        if (stored != computed) {
            throw corrupt(String.format("checksum mismatch (stored 0x%08x, computed 0x%08x)", stored, computed));
        }
        int flags = Byte.toUnsignedInt(bytes[OFF_FLAGS]);
        if ((flags & ~1) != 0 || bytes[OFF_RESERVED] != 0) {
            throw corrupt(String.format("unknown flags 0x%02x/0x%02x", flags, Byte.toUnsignedInt(bytes[OFF_RESERVED])));
        }
        if (!allZero(bytes, OFF_ADDR + SockAddr.BYTES, OFF_CHECKSUM)) {
            throw corrupt("non-zero padding after the root address");
        }
        InetSocketAddress root;
        try {
            root = SockAddr.decode(b.position(OFF_ADDR));
        } catch (IllegalArgumentException e) {
            throw corrupt("bad root address: " + e.getMessage());
        }
        return new BootstrapId(root, b.getLong(OFF_NONCE), (flags & 1) != 0);
    }

    private static NcclException corrupt(String what) {
        return NcclException.of(Result.INVALID_ARGUMENT, "unique id is corrupt: " + what,
                "the id was altered on its way; " + PASS_UNCHANGED);
    }

    private static boolean looksLikeCNccl(byte[] bytes) {
        int family = Byte.toUnsignedInt(bytes[0]) | Byte.toUnsignedInt(bytes[1]) << 8;
        return (family == SockAddr.AF_INET || family == SockAddr.AF_INET6)
                && allZero(bytes, SockAddr.BYTES, bytes.length) && !allZero(bytes, 2, SockAddr.BYTES);
    }

    private static boolean allZero(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Parses {@code NCCL_COMM_ID}: {@code <ipv4>:<port>}, {@code [<ipv6>]:<port>} (a {@code %scope}
     * suffix may name an interface or give its index), or {@code <hostname>:<port>} (resolved now,
     * first address). The nonce is derived from the text (SHA-256 of it, stripped), so every rank
     * given the same text agrees on it without talking to the others.
     *
     * @param commId the value of {@code NCCL_COMM_ID}
     * @return the id, with {@link #fromCommId()} set
     * @throws NcclException with {@link Result#INVALID_ARGUMENT} and NCCL's message if the text is
     *     not one of those forms, the port is not 1..65535, or the host does not resolve
     */
    public static BootstrapId fromCommId(String commId) {
        if (commId == null || commId.isBlank()) {
            throw badCommId(commId, "empty");
        }
        String text = commId.strip();
        InetSocketAddress root;
        try {
            root = CommIdAddress.parse(text);
        } catch (IllegalArgumentException e) {
            throw NcclException.of(Result.INVALID_ARGUMENT, e.getMessage(),
                    "e.g. NCCL_COMM_ID=10.0.0.1:29500 or [fe80::1%eth0]:29500 or node0:29500");
        }
        if (root.getPort() < 1) {
            throw badCommId(text, "port " + root.getPort() + " is not in 1..65535");
        }
        Log.info(Subsys.INIT, "NCCL_COMM_ID set by environment to %s", text);
        return new BootstrapId(root, commIdNonce(text), true);
    }

    private static NcclException badCommId(String text, String why) {
        Log.warn("%s", COMM_ID_FORMAT);
        return NcclException.of(Result.INVALID_ARGUMENT,
                COMM_ID_FORMAT + " (got \"" + text + "\": " + why + ")", COMM_ID_HINT);
    }

    /**
     * @param text the stripped {@code NCCL_COMM_ID} text
     * @return the nonce every rank derives from it
     */
    static long commIdNonce(String text) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] h = md.digest(("nccl4j NCCL_COMM_ID " + text).getBytes(StandardCharsets.UTF_8));
            return ByteBuffer.wrap(h).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    @Override
    public String toString() {
        return String.format("BootstrapId[root=%s, nonce=0x%016x%s]", SockAddr.text(root), nonce,
                fromCommId ? ", NCCL_COMM_ID" : "");
    }
}
