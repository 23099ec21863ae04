package org.nccl4j.gpu.hip.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nccl4j.core.device.gpu.GpuPointer;
import org.nccl4j.gpu.hip.HipToolchain;

/**
 * Each {@link HipFunction}'s prototype against the installed {@code hip_runtime_api.h}: a C++
 * file takes every function's address as a pointer of the prototype's type, which compiles only
 * where the types match exactly (a function pointer converts to no other), and one field-size
 * check for the struct passed by value; likewise every flag and enum value the calls pass.
 */
class HipFunctionHeaderTest {
    @Test
    void everyPrototypeMatchesTheInstalledHeaders(@TempDir Path dir) throws Exception {
        StringBuilder src = new StringBuilder();
        for (HipFunction f : HipFunction.values()) {
            String ptr = f.pointerType().replace("(*)", "(*p_" + f.name() + ")");
            src.append("static ").append(ptr).append(" = &").append(f.name()).append(";\n");
        }
        src.append("static_assert(sizeof(hipIpcMemHandle_t) == ").append(CType.IPC_HANDLE_BYTES)
                .append(", \"hipIpcMemHandle_t\");\n");
        compiles(dir, src);
    }

    /**
     * The flags, enum values and error codes {@link HipContext} passes or tests, and the memory
     * types' numbering {@link HipMemoryTypes} picks for the installed headers' major version.
     */
    @Test
    void everyFlagAndEnumValueIsTheHeadersOne(@TempDir Path dir) throws Exception {
        Map<String, Integer> values = new LinkedHashMap<>();
        values.put("hipErrorInvalidValue", HipFlags.ERROR_INVALID_VALUE);
        values.put("hipErrorNotReady", HipFlags.ERROR_NOT_READY);
        values.put("hipErrorPeerAccessAlreadyEnabled", HipFlags.ERROR_PEER_ACCESS_ALREADY_ENABLED);
        values.put("hipErrorNoDevice", HipRuntime.ERROR_NO_DEVICE);
        values.put("hipSuccess", HipRuntime.SUCCESS);
        values.put("hipMemcpyHostToDevice", HipFlags.MEMCPY_HOST_TO_DEVICE);
        values.put("hipMemcpyDeviceToHost", HipFlags.MEMCPY_DEVICE_TO_HOST);
        values.put("hipMemcpyDeviceToDevice", HipFlags.MEMCPY_DEVICE_TO_DEVICE);
        values.put("hipHostMallocPortable", HipFlags.HOST_MALLOC_PORTABLE);
        values.put("hipHostMallocMapped", HipFlags.HOST_MALLOC_MAPPED);
        values.put("hipHostRegisterPortable", HipFlags.HOST_REGISTER_PORTABLE);
        values.put("hipHostRegisterMapped", HipFlags.HOST_REGISTER_MAPPED);
        values.put("hipStreamNonBlocking", HipFlags.STREAM_NON_BLOCKING);
        values.put("hipEventDefault", HipFlags.EVENT_DEFAULT);
        values.put("hipEventDisableTiming", HipFlags.EVENT_DISABLE_TIMING);
        values.put("hipIpcMemLazyEnablePeerAccess", HipFlags.IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
        values.put("HIP_POINTER_ATTRIBUTE_MEMORY_TYPE", HipFlags.POINTER_ATTRIBUTE_MEMORY_TYPE);
        values.put("HIP_POINTER_ATTRIBUTE_IS_MANAGED", HipFlags.POINTER_ATTRIBUTE_IS_MANAGED);
        values.put("HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL", HipFlags.POINTER_ATTRIBUTE_DEVICE_ORDINAL);
        // hipMemoryType: each name's value is where the numbering for these headers maps it to CUDA's type.
        HipMemoryTypes types = HipMemoryTypes.of(headerMajor() * 10_000_000);
        Map<String, Integer> cuda = Map.of("hipMemoryTypeHost", GpuPointer.HOST, "hipMemoryTypeDevice",
                GpuPointer.DEVICE, "hipMemoryTypeArray", GpuPointer.ARRAY, "hipMemoryTypeUnified", GpuPointer.UNIFIED);
        cuda.forEach((name, type) -> values.put(name, IntStream.range(0, 64).filter(v -> types.toCuda(v) == type)
                .findFirst().orElse(-1)));
        StringBuilder src = new StringBuilder();
        values.forEach((name, v) -> src.append("static_assert((int) ").append(name).append(" == ").append(v)
                .append(", \"").append(name).append("\");\n"));
        compiles(dir, src);
    }

    private static int headerMajor() throws IOException {
        Path header = HipToolchain.includeDir().orElseThrow().resolve("hip/hip_version.h");
        Matcher m = Pattern.compile("#define HIP_VERSION_MAJOR (\\d+)").matcher(Files.readString(header));
        assumeTrue(m.find(), "no HIP_VERSION_MAJOR in " + header);
        return Integer.parseInt(m.group(1));
    }

    /** Compiles the declarations after {@code #include <hip/hip_runtime_api.h>}, or fails with the compiler's words. */
    private static void compiles(Path dir, CharSequence declarations) throws Exception {
        Optional<Path> include = HipToolchain.includeDir();
        assumeTrue(include.isPresent(), "no hip/hip_runtime_api.h (Debian: apt-get install libamdhip64-dev)");
        Optional<Path> cxx = HipToolchain.llvmTool("clang++").or(() -> Optional.of(Path.of("/usr/bin/c++"))
                .filter(Files::isExecutable));
        assumeTrue(cxx.isPresent(), "no C++ compiler (clang++ or c++)");
        String src = "#include <hip/hip_runtime_api.h>\n" + declarations;
        Path file = dir.resolve("check.cc");
        Files.writeString(file, src);
        List<String> cmd = new ArrayList<>(List.of(cxx.get().toString(), "-fsyntax-only", "-std=c++17",
                "-D__HIP_PLATFORM_AMD__", "-Wno-unused-variable", "-I", include.get().toString(), file.toString()));
        HipToolchain.Run r = HipToolchain.run(cmd);
        assertEquals(0, r.code(), String.join(" ", cmd) + "\n" + src + "\n" + r.output());
    }
}
