package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.launch.LocalLauncher;
import org.nccl4j.gpu.cuda.driver.CudaDriver;

/**
 * {@code nccl4j topo show} in a JVM of its own: host ranks where no GPU is usable, this
 * machine's GPUs where the cuda backend is (tagged {@code gpu}).
 */
class TopoShowTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final boolean DRIVER = Files.exists(Path.of("/dev/nvidiactl"))
            || Files.exists(Path.of("/proc/driver/nvidia/version"));

    private static List<String> show(String... args) {
        LocalLauncher.Outcome out = Ranks.run(Ranks.launcher(args), 1, 1, null, TIMEOUT);
        assertTrue(out.success(), Ranks.all(out));
        // From the header on (the JVM's own warnings come first).
        List<String> lines = out.output().get(0);
        int header = lines.indexOf(lines.stream().filter(l -> l.startsWith("# topology of this machine")).findFirst()
                .orElseThrow(() -> new AssertionError(Ranks.all(out))));
        return lines.subList(header, lines.size());
    }

    @Test
    void withoutAGpuItShowsHostRanksOnTheHostTables() {
        Assumptions.assumeFalse(DRIVER, "an NVIDIA driver is here: the cuda backend is chosen (TopoShowTest#gpus)");
        List<String> lines = show("topo", "show", "--nranks", "3");
        String text = String.join("\n", lines);
        assertTrue(lines.get(0).startsWith("# topology of this machine for 3 local host ranks (backend host, net "),
                text);
        for (int r = 0; r < 3; r++) {
            assertTrue(text.contains("<gpu dev=\"" + r + "\" sm=\"0\" rank=\"" + r + "\" gdr=\"0\"/>"), text);
        }
        assertTrue(text.contains("\n# what init computes on it\n"), text);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("RANK 2 nNodes=1 node=0 localRanks=3 nChannels=")), text);
    }

    @Test
    @Tag("gpu")
    void gpus() throws Exception {
        Assumptions.assumeTrue(DRIVER, "no NVIDIA driver here");
        CudaDriver driver = CudaDriver.load();
        int n = driver.deviceCount();
        List<String> lines = show("topo", "show");
        String text = String.join("\n", lines);
        assertEquals("# topology of this machine for " + n + " local cuda ranks on " + n + " GPU" + (n == 1 ? "" : "s")
                + " (backend cuda, net ", lines.get(0).substring(0, lines.get(0).indexOf("net ") + 4), text);
        for (int d = 0; d < n; d++) {
            assertTrue(Pattern.compile("<pci busid=\"" + Pattern.quote(driver.pciBusId(d)) + "\" class=\"0x03[^>]*>\\s*"
                    + "<gpu dev=\"" + d + "\" sm=\"" + driver.computeCapability(d) + "\" rank=\"" + d + "\"")
                    .matcher(text).find(), text);
        }
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("RANK 0 nNodes=1 node=0 localRanks=" + n + " nChannels=")),
                text);

        List<String> shared = show("topo", "show", "--nranks", Integer.toString(n + 2));
        String sharedText = String.join("\n", shared);
        assertTrue(shared.get(0).contains(" local cuda ranks on " + n + " GPU") && shared.get(0).contains(
                "sharing them (NCCL4J_SHARED_DEVICE=1)"), sharedText);
        assertEquals(n + 2, Pattern.compile("<gpu dev=\"\\d+\" sm=\"" + driver.computeCapability(0) + "\" rank=")
                .matcher(sharedText).results().count(), sharedText);
    }
}
