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
 * {@code nccl4j train --device cuda|hip} on this machine's GPU, for each GPU backend a subclass: 2 ranks (threads) all-reduce their
 * gradients in device memory; the loss falls, both replicas end bit-identical, and, since the
 * average of two addends does not depend on the order of the reduction, with the very weights the
 * host backend's 2-rank run ends with.
 */
@Tag("gpu")
abstract class TrainGpuSuite {
    private static final Pattern EPOCH = Pattern.compile("^epoch +(\\d+) +loss ([0-9.]+) .*");
    private static final Pattern IDENTICAL = Pattern.compile(
            "replicas identical: yes \\(2 ranks, 4547 parameters, digest ([0-9a-f]{16})\\)");

    private final GpuHere gpu;

    TrainGpuSuite(GpuHere gpu) {
        this.gpu = gpu;
    }

    @BeforeEach
    void needsGpu() {
        gpu.requireOrSkip();
    }

    @Test
    void lossFallsAndReplicasMatchEachOtherAndTheHostRun() {
        Cli.Result run = Cli.run("train", "--device", gpu.backend(), "--threads", "2", "--epochs", "6");
        assertEquals(0, run.exitCode(), run.text());
        assertTrue(run.lines().stream().anyMatch(l -> l.startsWith("# gradients in device memory (" + gpu.backend() + ":")),
                run.text());
        double[] loss = new double[6];
        int seen = 0;
        for (String l : run.lines()) {
            Matcher m = EPOCH.matcher(l);
            if (m.matches()) {
                loss[Integer.parseInt(m.group(1)) - 1] = Double.parseDouble(m.group(2));
                seen++;
            }
        }
        assertEquals(6, seen, run.text());
        assertTrue(loss[5] < loss[0] * 0.7, "loss did not fall: " + run.text());
        String digest = identicalDigest(run.lines(), run.text());
        assertTrue(run.lines().contains("rank 0 digest " + digest + " (4547 parameters)"), run.text());
        assertTrue(run.lines().contains("rank 1 digest " + digest + " (4547 parameters)"), run.text());

        Cli.Result host = Cli.run("train", "--threads", "2", "--epochs", "6");
        assertEquals(0, host.exitCode(), host.text());
        assertEquals(identicalDigest(host.lines(), host.text()), digest, run.text() + "\n" + host.text());
    }

    /** @return the digest of the "replicas identical: yes" line that ends a 2-rank run's output */
    static String identicalDigest(List<String> lines, String context) {
        Matcher m = IDENTICAL.matcher(lines.getLast());
        assertTrue(m.matches(), context);
        return m.group(1);
    }
}
