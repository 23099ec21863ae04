package org.nccl4j.core.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclUsageException;
import org.nccl4j.Result;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.param.Setting;

class DeviceBackendsTest {
    private static Config config(Map<String, String> env) {
        return Config.of(new Properties(), env, Path.of("/nonexistent/nccl.conf"));
    }

    private static List<String> statuses(DeviceBackends.Selection s) {
        return s.candidates().stream().map(c -> c.name() + ": " + c.status()).toList();
    }

    @Test
    void registeredBackendsAreOnlyHost() {
        assertEquals(List.of(HostBackend.NAME), DeviceBackends.providers().stream().map(DeviceBackendProvider::name).toList());
    }

    @Test
    void backendsAfterTheChosenOneAreNotTried() {
        TestBackendProvider gpu = TestBackendProvider.with("gpu", 100, 1);
        TestBackendProvider host = TestBackendProvider.with("host", 1000, 2);
        DeviceBackends.Selection s = DeviceBackends.select(config(Map.of()), List.of(gpu, host));
        assertEquals("gpu", s.backend().name());
        assertEquals(List.of("gpu: chosen, 1 device", "host: not tried: gpu came first"), statuses(s));
        assertEquals(1, gpu.created());
        assertEquals(0, host.created());
    }

    @Test
    void aBackendIsUsableOnlyOnceCreatedWithADevice() {
        TestBackendProvider broken = TestBackendProvider.failing("cuda", 100, "libcuda.so.1: cannot open shared object file");
        TestBackendProvider empty = TestBackendProvider.with("hip", 200, 0);
        TestBackendProvider host = TestBackendProvider.with("host", 1000, 4);
        DeviceBackends.Selection s = DeviceBackends.select(config(Map.of()), List.of(broken, empty, host));
        assertEquals("host", s.backend().name());
        assertEquals(List.of("cuda: unusable: libcuda.so.1: cannot open shared object file", "hip: unusable: no device",
                "host: chosen, 4 devices"), statuses(s));
    }

    @Test
    void aBackendUsedOnlyWhenNamedIsLeftOutOfTheChoiceUntilNamed() {
        TestBackendProvider hip = TestBackendProvider.onlyWhenNamed("hip", 200, 2, "not yet run on AMD GPUs");
        TestBackendProvider host = TestBackendProvider.with("host", 1000, 4);
        DeviceBackends.Selection auto = DeviceBackends.select(config(Map.of()), List.of(hip, host));
        assertEquals("host", auto.backend().name());
        assertEquals(List.of("hip: passed by: 2 devices, but used only when NCCL4J_DEVICE=hip names it (not yet run on "
                + "AMD GPUs)", "host: chosen, 4 devices"), statuses(auto));
        DeviceBackends.Selection named = DeviceBackends.select(config(Map.of("NCCL4J_DEVICE", "hip")), List.of(hip, host));
        assertEquals("hip", named.backend().name());
        assertEquals(List.of("hip: chosen, 2 devices", "host: not selected (NCCL4J_DEVICE=hip)"), statuses(named));
    }

    @Test
    void unknownDeviceNamesTheValueAndTheKnownBackends() {
        TestBackendProvider host = TestBackendProvider.with("host", 1000, 4);
        NcclUsageException e = assertThrows(NcclUsageException.class,
                () -> DeviceBackends.select(config(Map.of("NCCL4J_DEVICE", "cuda")), List.of(host)));
        assertEquals(Result.INVALID_USAGE, e.result());
        assertEquals("NCCL4J_DEVICE=cuda names no device backend; known backends: host", e.detail());
        assertEquals(0, host.created());
    }

    @Test
    void namedBackendThatCannotRunSaysWhy() {
        TestBackendProvider gpu = TestBackendProvider.with("gpu", 100, 0);
        TestBackendProvider host = TestBackendProvider.with("host", 1000, 4);
        NcclUsageException e = assertThrows(NcclUsageException.class,
                () -> DeviceBackends.select(config(Map.of("NCCL4J_DEVICE", "GPU")), List.of(gpu, host)));
        assertEquals("no usable device backend named GPU; candidates: gpu (unusable: no device), "
                + "host (not selected (NCCL4J_DEVICE=GPU))", e.detail());
    }

    @Test
    void hostNamedExplicitlyIsTheRealHostBackend() {
        DeviceBackends.Selection s = DeviceBackends.select(config(Map.of("NCCL4J_DEVICE", "host")));
        assertSame(HostBackend.class, s.backend().getClass());
    }

    @Test
    void knobsTheHostBackendDoesNotApplyAreListedWhenSet() {
        Config c = config(Map.of("NCCL_COLLNET_ENABLE", "1", "NCCL_MAX_P2P_NCHANNELS", "32", "NCCL_BUFFSIZE", "1048576"));
        assertEquals(List.of(Params.MAX_P2P_NCHANNELS, Params.COLLNET_ENABLE),
                HostBackend.unappliedKnobs(c).stream().map(Setting::param).toList());
        assertEquals(List.of(), HostBackend.unappliedKnobs(config(Map.of())));
    }
}
