package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --device cuda} where no NVIDIA driver is (CI): perf and train fail at once with the cuda
 * backend's own reason, exit code 2 (the commands' code for a refused run), no stack trace and
 * nothing on standard output. AlltoAll on device memory is refused by name wherever it runs,
 * before any rank starts.
 */
class DeviceCudaUnavailableTest {
    private static final String NO_DRIVER = "INVALID_USAGE: --device cuda: no NVIDIA driver: libcuda.so.1 not found "
            + "(libcuda.so.1: cannot open shared object file: No such file or directory)";

    @ParameterizedTest
    @ValueSource(strings = {"perf --device cuda -b 8 -e 1G -f 4", "perf --device CUDA --nranks 4 --op allgather",
        "perf --device cuda --op sendrecv --threads 2",
        "train --device cuda --nranks 2 --epochs 1", "train --device cuda"})
    void withoutADriverTheCommandFailsWithTheBackendsReason(String command) {
        assumeFalse(GpuHere.CUDA.driverPresent(), "an NVIDIA driver is present here: the no-driver assertions do not apply");
        Cli.Result r = Cli.run(command.split(" "));
        String cmd = command.substring(0, command.indexOf(' '));
        assertEquals(2, r.exitCode(), r.text());
        assertTrue(r.stderr().startsWith("nccl4j " + cmd + ": " + NO_DRIVER), r.text());
        assertTrue(r.stderr().endsWith("(hint: run on a machine with an NVIDIA GPU and its driver, or use --device host)\n"),
                r.text());
        assertEquals(1, r.stderr().lines().count(), "one line, no stack trace: " + r.text());
        assertTrue(r.lines().isEmpty(), r.text());
    }

    @Test
    void alltoallOnDeviceMemoryIsRefusedNotRunOnHostMemory() {
        Cli.Result r = Cli.run("perf", "--device", "cuda", "--op", "alltoall", "--threads", "2");
        assertEquals(2, r.exitCode(), r.text());
        assertEquals("nccl4j perf: INVALID_USAGE: alltoall_perf on cuda memory: its in-place half passes one buffer as "
                + "both, and AllToAll on device memory refuses overlapping buffers (in place its sends and receives would "
                + "race, as NCCL's do) (hint: measure it with --device host, or call allToAll on two DeviceBuffers)\n",
                r.stderr(), r.text());
        assertTrue(r.lines().isEmpty(), r.text());
    }
}
