package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code nccl4j train --device cuda} on this machine's GPU: 2 ranks (threads) all-reduce their
 * gradients in device memory; the loss falls, both replicas end bit-identical, and, since the
 * average of two addends does not depend on the order of the reduction, with the very weights the
 * host backend's 2-rank run ends with.
 */
@Tag("gpu")
class TrainGpuTest {
    private static final Pattern EPOCH = Pattern.compile("^epoch +(\\d+) +loss ([0-9.]+) .*");
    private static final Pattern IDENTICAL = Pattern.compile(
            "replicas identical: yes \\(2 ranks, 4547 parameters, digest ([0-9a-f]{16})\\)");

    @BeforeEach
    void needsGpu() {
        CudaGpu.requireOrSkip();
    }

    @Test
    void lossFallsAndReplicasMatchEachOtherAndTheHostRun() {
        Cli.Result gpu = Cli.run("train", "--device", "cuda", "--threads", "2", "--epochs", "6");
        assertEquals(0, gpu.exitCode(), gpu.text());
        assertTrue(gpu.lines().stream().anyMatch(l -> l.startsWith("# gradients in device memory (cuda:")), gpu.text());
        double[] loss = new double[6];
        int seen = 0;
        for (String l : gpu.lines()) {
            Matcher m = EPOCH.matcher(l);
            if (m.matches()) {
                loss[Integer.parseInt(m.group(1)) - 1] = Double.parseDouble(m.group(2));
                seen++;
            }
        }
        assertEquals(6, seen, gpu.text());
        assertTrue(loss[5] < loss[0] * 0.7, "loss did not fall: " + gpu.text());
        String digest = identicalDigest(gpu.lines(), gpu.text());
        assertTrue(gpu.lines().contains("rank 0 digest " + digest + " (4547 parameters)"), gpu.text());
        assertTrue(gpu.lines().contains("rank 1 digest " + digest + " (4547 parameters)"), gpu.text());

        Cli.Result host = Cli.run("train", "--threads", "2", "--epochs", "6");
        assertEquals(0, host.exitCode(), host.text());
        assertEquals(identicalDigest(host.lines(), host.text()), digest, gpu.text() + "\n" + host.text());
    }

    /** @return the digest of the "replicas identical: yes" line that ends a 2-rank run's output */
    static String identicalDigest(List<String> lines, String context) {
        Matcher m = IDENTICAL.matcher(lines.getLast());
        assertTrue(m.matches(), context);
        return m.group(1);
    }
}
