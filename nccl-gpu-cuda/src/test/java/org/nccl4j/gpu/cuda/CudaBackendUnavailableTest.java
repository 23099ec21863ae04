package org.nccl4j.gpu.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;
import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.DeviceBackends;
import org.nccl4j.core.device.DeviceUnavailableException;
import org.nccl4j.core.device.LocalDevice;
import org.nccl4j.core.param.Config;

/**
 * Where no NVIDIA driver is (CI), the CUDA backend is found, says why it cannot run, is refused
 * by name with that reason, and leaves the host backend to run collectives. Where a driver is,
 * it is created instead and counts its devices.
 */
class CudaBackendUnavailableTest {
    private static final String NO_DRIVER = "no NVIDIA driver: libcuda.so.1 not found (libcuda.so.1: cannot open "
            + "shared object file: No such file or directory)";

    private static Config config(Map<String, String> env) {
        return Config.of(new Properties(), env, Path.of("/nonexistent/nccl.conf"));
    }

    private static void assumeNoDriver() {
        assumeFalse(NvidiaDriver.present(), "an NVIDIA driver is present here: the no-driver assertions do not apply");
    }

    @Test
    void createSaysTheDriverIsMissingEveryTime() {
        assumeNoDriver();
        for (int i = 0; i < 2; i++) { // the second answer comes from the first load's outcome
            DeviceUnavailableException e = assertThrows(DeviceUnavailableException.class,
                    () -> new CudaBackendProvider().create());
            assertTrue(e.getMessage().startsWith(NO_DRIVER), e.getMessage());
        }
    }

    @Test
    void namingCudaFailsInitWithTheReason() {
        assumeNoDriver();
        NcclException select = assertThrows(NcclException.class,
                () -> DeviceBackends.select(config(Map.of("NCCL4J_DEVICE", "cuda"))));
        assertEquals(Result.INVALID_USAGE, select.result());
        assertTrue(select.detail().contains("no usable device backend named cuda; candidates: cuda (unusable: "
                + NO_DRIVER), select.detail());

        NcclException init = assertThrows(NcclException.class,
                () -> Nccl.commInitAll(2, CommConfig.builder().param("NCCL4J_DEVICE", "cuda").build()));
        assertEquals(Result.INVALID_USAGE, init.result());
        assertTrue(init.getMessage().contains(NO_DRIVER), init.getMessage());
    }

    @Test
    void unsetTheHostBackendRunsAllReduce() throws Exception {
        assumeNoDriver();
        DeviceBackends.Selection s = DeviceBackends.select(config(Map.of()));
        assertEquals("host", s.backend().name());
        assertEquals("cuda", s.candidates().getFirst().name());
        assertTrue(s.candidates().getFirst().status().startsWith("unusable: " + NO_DRIVER), s.candidates().toString());

        int n = 4096;
        List<Communicator> comms = Nccl.commInitAll(2);
        try {
            int[][] data = new int[2][n];
            for (int i = 0; i < n; i++) {
                data[0][i] = i;
                data[1][i] = 2 * i;
            }
            // Each rank's blocking allReduce on its own thread, as ranks of one process run.
            CompletableFuture<?>[] ranks = new CompletableFuture<?>[2];
            for (int r = 0; r < 2; r++) {
                Communicator c = comms.get(r);
                int[] mine = data[r];
                ranks[r] = CompletableFuture.runAsync(() -> c.allReduce(mine, RedOp.SUM));
            }
            CompletableFuture.allOf(ranks).get(60, TimeUnit.SECONDS);
            for (int r = 0; r < 2; r++) {
                for (int i = 0; i < n; i++) {
                    assertEquals(3 * i, data[r][i], "rank " + r + " element " + i);
                }
            }
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    @Test
    void withADriverTheBackendIsCreatedAndOpensADevice() throws DeviceUnavailableException {
        assumeTrue(NvidiaDriver.present(), "no NVIDIA driver here: the backend cannot be created");
        DeviceBackend b = new CudaBackendProvider().create();
        assertEquals("cuda", b.name());
        assertTrue(b.deviceCount() >= 1, "devices: " + b.deviceCount());
        LocalDevice d = b.open(config(Map.of()));
        assertEquals("cuda", d.backend());
        assertTrue(d.busIdText().matches("[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]"), d.busIdText());
        assertEquals(LocalDevice.busIdOf(d.busIdText()), d.busId());
    }
}
