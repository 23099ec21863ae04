package org.nccl4j.net.ext;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the native test fixtures are (built by src/test/c/build-fixtures.sh). */
final class Fixtures {
    private Fixtures() {
    }

    /**
     * @param name e.g. {@code fixture-v8} for {@code libnccl-net-fixture-v8.so}
     * @return the library's absolute path
     */
    static String library(String name) {
        String dir = System.getProperty("nccl4j.fixtures");
        assertTrue(dir != null, "system property nccl4j.fixtures is not set (run the tests through Maven)");
        Path p = Path.of(dir, "libnccl-net-" + name + ".so").toAbsolutePath();
        assertTrue(Files.isRegularFile(p), p + " was not built");
        return p.toString();
    }
}
