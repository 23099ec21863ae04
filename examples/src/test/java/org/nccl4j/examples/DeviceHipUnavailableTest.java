package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --device hip} where no AMD GPU is (CI): perf and train fail at once with the hip
 * backend's own reason (the runtime and its version, or its absence), exit code 2, one line on
 * standard error and nothing on standard output.
 */
class DeviceHipUnavailableTest {
    @ParameterizedTest
    @ValueSource(strings = {"perf --device hip -b 8 -e 1M -f 4", "perf --device HIP --nranks 2 --op allgather",
        "train --device hip --nranks 2 --epochs 1", "train --device hip --threads 2"})
    void withoutAnAmdGpuTheCommandFailsWithTheBackendsReason(String command) {
        assumeFalse(GpuHere.HIP.driverPresent(), "an AMD GPU driver is present here: the no-GPU assertions do not apply");
        Cli.Result r = Cli.run(command.split(" "));
        String cmd = command.substring(0, command.indexOf(' '));
        assertEquals(2, r.exitCode(), r.text());
        // The reason, then "; and built without HIP kernels" where the jar has none (-Dnccl4j.hip.skip).
        assertTrue(r.stderr().startsWith("nccl4j " + cmd + ": INVALID_USAGE: --device hip: " + HipRuntimeHere.reason()),
                r.text());
        assertTrue(r.stderr().endsWith("(hint: run on a machine with an AMD GPU and ROCm, or use --device host)\n"),
                r.text());
        assertEquals(1, r.stderr().lines().count(), "one line, no stack trace: " + r.text());
        assertTrue(r.lines().isEmpty(), r.text());
    }
}
