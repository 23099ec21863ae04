package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.launch.LocalLauncher;

/**
 * {@code nccl4j doctor}, in a JVM of its own with the CLI's class path, lists the CUDA backend
 * first, then the HIP backend, and says why each is or is not usable on this machine (judged
 * here from the machine's files, without nccl4j's code).
 */
class DoctorCudaTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    /** The NVIDIA kernel driver, judged without nccl4j's code. */
    private static final boolean DRIVER = Files.exists(Path.of("/dev/nvidiactl"))
            || Files.exists(Path.of("/proc/driver/nvidia/version"));

    @Test
    void doctorListsTheCudaBackendWithItsReason() {
        LocalLauncher.Outcome out = Ranks.run(Ranks.launcher("doctor"), 1, 1, null, TIMEOUT);
        assertTrue(out.success(), Ranks.all(out));
        List<String> lines = out.output().get(0);
        String text = String.join("\n", lines);
        int at = lines.indexOf("Device backends (in the order tried):");
        assertTrue(at >= 0 && at + 3 < lines.size(), text);
        String cuda = lines.get(at + 1);
        String hip = lines.get(at + 2);
        String host = lines.get(at + 3);
        if (DRIVER) {
            assertTrue(Pattern.matches("  cuda       priority  100  chosen, \\d+ devices?", cuda), text);
            assertTrue(hip.equals("  hip        priority  200  not tried: cuda came first"), text);
            assertTrue(host.equals("  host       priority 1000  not tried: cuda came first"), text);
        } else {
            assertTrue(hip.startsWith("  hip        priority  200  unusable: " + HipRuntimeHere.reason()), text);
            assertTrue(cuda.startsWith("  cuda       priority  100  unusable: no NVIDIA driver: libcuda.so.1 not found "
                    + "(libcuda.so.1: cannot open shared object file: No such file or directory)"), text);
            assertTrue(host.startsWith("  host       priority 1000  chosen, "), text);
        }
    }
}
