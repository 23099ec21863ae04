package org.nccl4j.net.spi.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The key's sources and checks, and the answer against an HMAC-SHA256 computed here from its definition. */
class ConnectionAuthTest {
    private static final String KEY = "0123456789abcdef0123";

    @Test
    void theAnswerIsHmacSha256OfPurposeChallengeAndMessage() throws Exception {
        byte[] challenge = HexFormat.of().parseHex("00112233445566778899aabbccddeeff");
        byte[] message = "header".getBytes(StandardCharsets.UTF_8);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(KEY.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        mac.update("p\0".getBytes(StandardCharsets.UTF_8));
        mac.update(challenge);
        byte[] want = mac.doFinal(message);
        ConnectionAuth a = ConnectionAuth.of(KEY, null);
        assertEquals(HexFormat.of().formatHex(want), HexFormat.of().formatHex(a.answer("p", challenge, message)));
        assertTrue(a.verify("p", challenge, message, want));
        assertFalse(a.verify("q", challenge, message, want), "another protocol's answer");
        assertFalse(a.verify("p", ConnectionAuth.challenge(), message, want), "another challenge");
        assertFalse(a.verify("p", challenge, "headeR".getBytes(StandardCharsets.UTF_8), want), "another message");
        assertFalse(ConnectionAuth.of("another-key-0123456789", null).verify("p", challenge, message, want));
        assertFalse(a.verify("p", challenge, message, Arrays.copyOf(want, 31)));
        assertFalse(a.verify("p", challenge, message, null));
    }

    @Test
    void challengesAreFresh() {
        assertNotEquals(HexFormat.of().formatHex(ConnectionAuth.challenge()), HexFormat.of().formatHex(ConnectionAuth.challenge()));
        assertEquals(ConnectionAuth.CHALLENGE_BYTES, ConnectionAuth.challenge().length);
    }

    @Test
    void keysComeFromTheParameterOrAFileAndAreChecked(@TempDir Path dir) throws Exception {
        assertNull(ConnectionAuth.of(null, null));
        assertNull(ConnectionAuth.of("", ""));
        Path f = Files.writeString(dir.resolve("key"), "  " + KEY + "\n");
        ConnectionAuth fromFile = ConnectionAuth.of(null, f.toString());
        byte[] c = ConnectionAuth.challenge();
        assertTrue(fromFile.verify("p", c, new byte[1], ConnectionAuth.of(KEY, null).answer("p", c, new byte[1])),
                "the file's key, trimmed, is the parameter's");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ConnectionAuth.of("short", null));
        assertTrue(e.getMessage().contains("has 5 bytes; use at least 16"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ConnectionAuth.of(KEY, f.toString()));
        assertTrue(e.getMessage().contains("are both set"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ConnectionAuth.of(null, dir.resolve("missing").toString()));
        assertTrue(e.getMessage().contains("cannot be read"), e.getMessage());
        assertFalse(ConnectionAuth.of(KEY, null).toString().contains(KEY));
    }
}
