package org.nccl4j.core.version;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** nccl4j's version (from the build) and the NCCL release it ports. */
public final class Nccl4jVersion {
    /** The NCCL version code whose behaviour nccl4j ports. */
    public static final int NCCL_CODE = 21003;
    /** The same as text. */
    public static final String NCCL_VERSION = "2.10.3";
    /** nccl4j's version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static final String VERSION = read();

    private Nccl4jVersion() {
    }

    private static String read() {
        try (InputStream in = Nccl4jVersion.class.getResourceAsStream("version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
