package org.nccl4j.net.spi.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Shared-secret authentication of a connection (nccl4j's own; NCCL has none): the accepting side
 * sends a fresh random challenge, the connecting side answers with an HMAC-SHA256 of the
 * challenge and its first message under the key, which the accepting side checks before it
 * believes a byte of that message. A stranger without the key cannot answer; a recorded answer
 * does not fit the next challenge, so it cannot be replayed.
 *
 * <p>It proves who opened the connection, not that no one tampers with it afterwards: it is no
 * substitute for an encrypted network. The key is {@code NCCL4J_AUTH_KEY}, or the contents of the
 * file {@code NCCL4J_AUTH_KEY_FILE} (trimmed); the same on every rank. Bootstrap and the Socket
 * net use it; other plugins may too. Immutable and thread-safe.
 */
public final class ConnectionAuth {
    /** Bytes of a challenge. */
    public static final int CHALLENGE_BYTES = 16;
    /** Bytes of an answer (HMAC-SHA256). */
    public static final int TAG_BYTES = 32;
    /** The parameter holding the key. */
    public static final String KEY_PARAM = "NCCL4J_AUTH_KEY";
    /** The parameter naming a file that holds the key. */
    public static final String KEY_FILE_PARAM = "NCCL4J_AUTH_KEY_FILE";

    private static final String ALGORITHM = "HmacSHA256";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    private ConnectionAuth(byte[] key) {
        this.key = new SecretKeySpec(key, ALGORITHM);
    }

    /**
     * @param key     the key's text, or {@code null}/empty
     * @param keyFile a file holding the key, or {@code null}/empty
     * @return the authentication, or {@code null} when neither is set (connections are then not
     *     authenticated, as in NCCL)
     * @throws IllegalArgumentException if both are set, the file cannot be read, or the key is
     *     shorter than 16 bytes
     */
    public static ConnectionAuth of(String key, String keyFile) {
        boolean hasKey = key != null && !key.isEmpty();
        boolean hasFile = keyFile != null && !keyFile.isEmpty();
        if (hasKey && hasFile) {
            throw new IllegalArgumentException(KEY_PARAM + " and " + KEY_FILE_PARAM + " are both set: set one");
        }
        String text = key;
        if (hasFile) {
            try {
                text = Files.readString(Path.of(keyFile), StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new IllegalArgumentException(KEY_FILE_PARAM + "=" + keyFile + " cannot be read: " + e.getMessage(), e);
            }
        } else if (!hasKey) {
            return null;
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length < 16) {
            throw new IllegalArgumentException("the authentication key (" + (hasFile ? KEY_FILE_PARAM : KEY_PARAM)
                    + ") has " + bytes.length + " bytes; use at least 16 random bytes, e.g. `openssl rand -hex 32`");
        }
        return new ConnectionAuth(bytes);
    }

    /** @return a fresh random challenge */
    public static byte[] challenge() {
        byte[] c = new byte[CHALLENGE_BYTES];
        RANDOM.nextBytes(c);
        return c;
    }

    /**
     * @param purpose   which protocol the connection speaks (keeps an answer of one from passing in another)
     * @param challenge the accepting side's challenge
     * @param message   the connecting side's first message (its header)
     * @return the answer the connecting side sends after the message
     */
    public byte[] answer(String purpose, byte[] challenge, byte[] message) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            mac.update(purpose.getBytes(StandardCharsets.UTF_8));
            mac.update((byte) 0);
            mac.update(challenge);
            mac.update(message);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available in this JDK", e);
        }
    }

    /**
     * @return whether {@code answer} is the right one, compared in constant time
     * @see #answer
     */
    public boolean verify(String purpose, byte[] challenge, byte[] message, byte[] answer) {
        return answer != null && MessageDigest.isEqual(answer(purpose, challenge, message), answer);
    }

    @Override
    public String toString() {
        return "ConnectionAuth[HMAC-SHA256, key hidden]";
    }
}
