package org.nccl4j.gpu.hip.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.gpu.GpuRuntime;
import org.nccl4j.net.spi.nativelib.DlLoader;

/**
 * {@link HipContext} against the real HIP runtime on a machine without an AMD GPU (CI's): there
 * every HIP call answers {@code hipErrorInvalidDevice} without touching its arguments, so each
 * {@link GpuRuntime} call is driven through its own downcall (a call site whose Java types
 * disagreed with the function's descriptor would throw {@code WrongMethodTypeException} instead)
 * and must come back as an {@link NcclException} naming that HIP function and HIP's error.
 */
class HipContextTest {
    private static final String NO_DEVICE = "hipErrorInvalidDevice (101)";

    private static HipRuntime runtimeWithoutGpu() throws Exception {
        assumeTrue(DlLoader.open("libamdhip64.so").ok() || DlLoader.open("libamdhip64.so.5").ok(),
                "no HIP runtime here (Debian: apt-get install libamdhip64-dev)");
        assumeFalse(Files.exists(Path.of("/dev/kfd")), "this machine has /dev/kfd (an AMD GPU driver)");
        return HipRuntime.load();
    }

    @Test
    void openingADeviceThisProcessDoesNotHaveSaysHowManyItHas() throws Exception {
        HipRuntime rt = runtimeWithoutGpu();
        NcclException e = assertThrows(NcclException.class, () -> HipContext.open(rt, 0));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        assertEquals("HIP device 0 is not one of this process's 0 AMD GPUs", e.detail());
    }

    @Test
    void everyCallGoesThroughItsOwnHipFunction() throws Exception {
        HipRuntime rt = runtimeWithoutGpu();
        HipContext c = HipContext.unselected(rt, 0);
        HipContext peer = HipContext.unselected(rt, 1);
        long p = 0x7f0000001000L;
        Map<String, Call> calls = new LinkedHashMap<>();
        calls.put("memAlloc", new Call("hipMalloc", () -> c.memAlloc(4096)));
        calls.put("memFree", new Call("hipFree", () -> c.memFree(p)));
        calls.put("memsetD8", new Call("hipMemsetD8Async", () -> c.memsetD8(p, 7, 64, p)));
        calls.put("copyHtoD", new Call("hipMemcpyAsync", () -> c.copyHtoD(p, p, 64, p)));
        calls.put("copyDtoH", new Call("hipMemcpy", () -> c.copyDtoH(p, p, 64, 0)));
        calls.put("copyDtoD", new Call("hipMemcpyAsync", () -> c.copyDtoD(p, p, 64, p)));
        calls.put("hostAllocMapped", new Call("hipHostMalloc", () -> c.hostAllocMapped(4096)));
        calls.put("devicePointerOf", new Call("hipHostGetDevicePointer", () -> c.devicePointerOf(p)));
        calls.put("hostRegister", new Call("hipHostRegister", () -> c.hostRegister(p, 4096)));
        calls.put("hostUnregister", new Call("hipHostUnregister", () -> c.hostUnregister(p)));
        calls.put("freeHost", new Call("hipHostFree", () -> c.freeHost(p)));
        calls.put("pointerInfo", new Call("hipDrvPointerGetAttributes", () -> c.pointerInfo(p)));
        calls.put("streamCreate", new Call("hipStreamCreateWithFlags", c::streamCreate));
        calls.put("streamDestroy", new Call("hipStreamDestroy", () -> c.streamDestroy(p)));
        calls.put("streamSynchronize", new Call("hipStreamSynchronize", () -> c.streamSynchronize(p)));
        calls.put("streamQuery", new Call("hipStreamQuery", () -> c.streamQuery(p)));
        calls.put("streamWaitEvent", new Call("hipStreamWaitEvent", () -> c.streamWaitEvent(p, p)));
        calls.put("eventCreate", new Call("hipEventCreateWithFlags", () -> c.eventCreate(false)));
        calls.put("eventRecord", new Call("hipEventRecord", () -> c.eventRecord(p, p)));
        calls.put("eventQuery", new Call("hipEventQuery", () -> c.eventQuery(p)));
        calls.put("eventSynchronize", new Call("hipEventSynchronize", () -> c.eventSynchronize(p)));
        calls.put("eventElapsedMillis", new Call("hipEventElapsedTime", () -> c.eventElapsedMillis(p, p)));
        calls.put("eventDestroy", new Call("hipEventDestroy", () -> c.eventDestroy(p)));
        calls.put("moduleLoad", new Call("hipModuleLoadData", () -> c.moduleLoad(new byte[] {0x7f, 'E', 'L', 'F'})));
        calls.put("moduleUnload", new Call("hipModuleUnload", () -> c.moduleUnload(p)));
        calls.put("function", new Call("hipModuleGetFunction", () -> c.function(p, "n4j_kernel")));
        calls.put("launch", new Call("hipModuleLaunchKernel", () -> c.launch(p, 2, 512, 0, p, p, 128)));
        calls.put("ipcHandle", new Call("hipIpcGetMemHandle", () -> c.ipcHandle(p)));
        calls.put("ipcOpen", new Call("hipIpcOpenMemHandle", () -> c.ipcOpen(new byte[GpuRuntime.IPC_HANDLE_BYTES])));
        calls.put("ipcClose", new Call("hipIpcCloseMemHandle", () -> c.ipcClose(p)));
        calls.put("canAccessPeer", new Call("hipDeviceCanAccessPeer", () -> c.canAccessPeer(peer)));
        calls.put("enablePeerAccess", new Call("hipDeviceEnablePeerAccess", () -> c.enablePeerAccess(peer)));

        Set<String> interfaceCalls = Arrays.stream(GpuRuntime.class.getMethods())
                .filter(m -> Modifier.isAbstract(m.getModifiers())).map(Method::getName)
                .filter(n -> !n.equals("device")).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(interfaceCalls, new TreeSet<>(calls.keySet()), "every GpuRuntime call is driven here");
        for (Map.Entry<String, Call> e : calls.entrySet()) {
            NcclException x = assertThrows(NcclException.class, e.getValue().call(), e.getKey());
            assertEquals(Result.UNHANDLED_DEVICE_ERROR, x.result(), e.getKey() + ": " + x.getMessage());
            assertTrue(x.detail().startsWith(e.getValue().function() + "(") && x.detail().endsWith("): " + NO_DEVICE),
                    e.getKey() + " should fail in " + e.getValue().function() + " with " + NO_DEVICE + ": " + x.detail());
        }
    }

    @Test
    void badArgumentsAreRefusedBeforeTheRuntimeSeesThem() throws Exception {
        HipContext c = HipContext.unselected(runtimeWithoutGpu(), 0);
        NcclException zero = assertThrows(NcclException.class, () -> c.memAlloc(0));
        assertEquals(Result.INVALID_ARGUMENT, zero.result());
        assertEquals("bytes = 0, must be at least 1", zero.detail());
        NcclException handle = assertThrows(NcclException.class, () -> c.ipcOpen(new byte[63]));
        assertEquals(Result.INVALID_ARGUMENT, handle.result());
        assertEquals("HIP IPC handle of 63 bytes, expected 64", handle.detail());
        NcclException image = assertThrows(NcclException.class, () -> c.moduleLoad(new byte[0]));
        assertEquals("module image is empty", image.detail());
    }

    private record Call(String function, Executable call) {
    }
}
