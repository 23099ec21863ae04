package org.nccl4j.gpu.hip.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nccl4j.gpu.hip.HipToolchain;

/**
 * Each {@link HipFunction}'s prototype against the installed {@code hip_runtime_api.h}: a C++
 * file takes every function's address as a pointer of the prototype's type, which compiles only
 * where the types match exactly (a function pointer converts to no other), and one field-size
 * check for the struct passed by value.
 */
class HipFunctionHeaderTest {
    @Test
    void everyPrototypeMatchesTheInstalledHeaders(@TempDir Path dir) throws Exception {
        Optional<Path> include = HipToolchain.includeDir();
        assumeTrue(include.isPresent(), "no hip/hip_runtime_api.h (Debian: apt-get install libamdhip64-dev)");
        Optional<Path> cxx = HipToolchain.llvmTool("clang++").or(() -> Optional.of(Path.of("/usr/bin/c++"))
                .filter(Files::isExecutable));
        assumeTrue(cxx.isPresent(), "no C++ compiler (clang++ or c++)");
        StringBuilder src = new StringBuilder("#include <hip/hip_runtime_api.h>\n");
        for (HipFunction f : HipFunction.values()) {
            String ptr = f.pointerType().replace("(*)", "(*p_" + f.name() + ")");
            src.append("static ").append(ptr).append(" = &").append(f.name()).append(";\n");
        }
        src.append("static_assert(sizeof(hipIpcMemHandle_t) == ").append(CType.IPC_HANDLE_BYTES)
                .append(", \"hipIpcMemHandle_t\");\n");
        Path file = dir.resolve("prototypes.cc");
        Files.writeString(file, src);
        List<String> cmd = new ArrayList<>(List.of(cxx.get().toString(), "-fsyntax-only", "-std=c++17",
                "-D__HIP_PLATFORM_AMD__", "-Wno-unused-variable", "-I", include.get().toString(), file.toString()));
        HipToolchain.Run r = HipToolchain.run(cmd);
        assertEquals(0, r.code(), String.join(" ", cmd) + "\n" + src + "\n" + r.output());
    }
}
