package org.nccl4j.gpu.hip.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.device.DeviceUnavailableException;
import org.nccl4j.gpu.hip.HipBackendProvider;
import org.nccl4j.gpu.hip.HipToolchain;
import org.nccl4j.gpu.hip.codeobject.CodeObjectResource;
import org.nccl4j.net.spi.nativelib.DlLoader;

/**
 * The real HIP runtime, where one is installed (CI installs Debian's libamdhip64-5 with hipcc):
 * every bound function is found, the version is the installed headers' {@code HIP_VERSION}, and
 * on a machine without AMD GPUs (no {@code /dev/kfd}) the backend says it found the runtime and
 * no GPU, in HIP's own words.
 */
class HipRuntimeTest {
    private static void assumeRuntime() {
        assumeTrue(DlLoader.open("libamdhip64.so").ok() || DlLoader.open("libamdhip64.so.5").ok(),
                "no HIP runtime here (Debian: apt-get install libamdhip64-dev)");
    }

    @Test
    void everyFunctionIsBoundAndTheVersionIsTheHeadersOne() throws Exception {
        assumeRuntime();
        HipRuntime rt = HipRuntime.load();
        for (HipFunction f : HipFunction.values()) {
            assertEquals(f.descriptor().toMethodType(), rt.handle(f).type(), f.toString());
        }
        Path header = HipToolchain.includeDir().orElseThrow().resolve("hip/hip_version.h");
        Matcher m = Pattern.compile("#define HIP_VERSION_MAJOR (\\d+)[\\s\\S]*#define HIP_VERSION_MINOR (\\d+)"
                + "[\\s\\S]*#define HIP_VERSION_PATCH (\\d+)").matcher(Files.readString(header));
        assumeTrue(m.find(), "no HIP_VERSION_* in " + header);
        String headers = m.group(1) + "." + m.group(2) + "." + m.group(3);
        assertEquals(headers, HipRuntime.versionText(rt.runtimeVersion()), "libamdhip64 against " + header);
    }

    @Test
    void withoutAnAmdGpuTheBackendSaysWhatItFoundInHipsWords() throws Exception {
        assumeRuntime();
        assumeFalse(Files.exists(Path.of("/dev/kfd")), "this machine has /dev/kfd (an AMD GPU driver)");
        HipRuntime rt = HipRuntime.load();
        assertEquals(0, rt.deviceCount());
        assertEquals("hipErrorNoDevice (100)", rt.describe(HipRuntime.ERROR_NO_DEVICE));
        DeviceUnavailableException e = assertThrows(DeviceUnavailableException.class,
                () -> new HipBackendProvider().create());
        String kernels = CodeObjectResource.present() ? "" : "; and " + CodeObjectResource.MISSING;
        assertEquals("HIP runtime " + rt.library() + " " + HipRuntime.versionText(rt.runtimeVersion())
                + ", but no AMD GPU (hipGetDeviceCount: hipErrorNoDevice (100))" + kernels, e.getMessage());
    }
}
