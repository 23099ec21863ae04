package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the hip backend must say on a machine without an AMD GPU, judged from the installed files
 * rather than by nccl4j's code: no runtime, or the runtime (its headers' version) and no AMD GPU.
 */
final class HipRuntimeHere {
    /** The HIP runtime as Debian's libamdhip64-dev or ROCm install it, and its headers' version. */
    private static final Path HIP_LIB = Path.of("/usr/lib/x86_64-linux-gnu/libamdhip64.so");
    private static final Path HIP_VERSION = Path.of("/usr/include/hip/hip_version.h");

    private HipRuntimeHere() {
    }


    /** @return the hip backend's reason for not running here */
    static String reason() {
        if (!Files.exists(HIP_LIB) || !Files.exists(HIP_VERSION)) {
            return "no HIP runtime: libamdhip64.so: cannot open shared object file";
        }
        try {
            String h = Files.readString(HIP_VERSION);
            String v = define(h, "HIP_VERSION_MAJOR") + "." + define(h, "HIP_VERSION_MINOR") + "."
                    + define(h, "HIP_VERSION_PATCH");
            return "HIP runtime libamdhip64.so " + v + ", but no AMD GPU (hipGetDeviceCount: hipErrorNoDevice (100))";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String define(String header, String name) {
        Matcher m = Pattern.compile("#define " + name + " (\\d+)").matcher(header);
        assertTrue(m.find(), name + " in " + HIP_VERSION);
        return m.group(1);
    }
}
