package org.nccl4j;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * NCCL's unique id: 128 opaque bytes that name the bootstrap root of one communicator.
 *
 * <p>Rank 0 obtains one with {@link Nccl#getUniqueId()} and hands it to every other rank (through
 * an environment variable, a file, a command line, or any channel the application has). The
 * printable form ({@link #toString()}) is 256 lowercase hex digits and is read back by
 * {@link #parse(String)}. The content is checked when a communicator is created: a foreign, stale
 * or corrupt id is refused with an {@link NcclUsageException}.
 */
public final class UniqueId {
    /** Size of a unique id in bytes ({@code NCCL_UNIQUE_ID_BYTES}). */
    public static final int BYTES = 128;

    private static final HexFormat HEX = HexFormat.of();
    private final byte[] bytes;

    private UniqueId(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * @param bytes exactly {@link #BYTES} bytes; copied
     * @return the id
     * @throws NcclUsageException if {@code bytes} is null or not 128 bytes long
     */
    public static UniqueId fromBytes(byte[] bytes) {
        if (bytes == null) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "unique id bytes are null", null);
        }
        if (bytes.length != BYTES) {
            throw NcclException.of(Result.INVALID_ARGUMENT,
                    "unique id has " + bytes.length + " bytes instead of " + BYTES,
                    "pass the bytes of an id from Nccl.getUniqueId() unchanged");
        }
        return new UniqueId(bytes.clone());
    }

    /**
     * Reads the printable form written by {@link #toString()}.
     *
     * @param text 256 hex digits (surrounding white space is ignored)
     * @return the id
     * @throws NcclUsageException if the text is not a printable unique id
     */
    public static UniqueId parse(String text) {
        if (text == null) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "unique id text is null", null);
        }
        String t = text.strip();
        if (t.length() != 2 * BYTES) {
            throw NcclException.of(Result.INVALID_ARGUMENT,
                    "unique id text has " + t.length() + " characters instead of " + 2 * BYTES,
                    "pass the text of UniqueId.toString() unchanged");
        }
        try {
            return new UniqueId(HEX.parseHex(t));
        } catch (IllegalArgumentException e) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "unique id text is not hexadecimal",
                    "pass the text of UniqueId.toString() unchanged", e);
        }
    }

    /** @return a copy of the 128 bytes */
    public byte[] toBytes() {
        return bytes.clone();
    }

    /** @return the printable form: 256 lowercase hex digits */
    @Override
    public String toString() {
        return HEX.formatHex(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UniqueId other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /**
     * @param id the id to check
     * @return {@code id}
     * @throws NcclUsageException if {@code id} is null
     */
    static UniqueId requireNonNull(UniqueId id) {
        if (Objects.isNull(id)) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "unique id is null",
                    "obtain one with Nccl.getUniqueId() on rank 0 and share it");
        }
        return id;
    }
}
