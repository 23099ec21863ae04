package org.nccl4j.gpu.hip;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The ROCm toolchain's own tools and headers, found where Debian's hipcc and ROCm install them:
 * the tests check the build and the bindings with these rather than with nccl4j's readers.
 */
public final class HipToolchain {
    private static final List<String> LLVM_DIRS = List.of("/opt/rocm/llvm/bin", "/usr/lib/llvm-15/bin",
            "/usr/lib/llvm-16/bin", "/usr/lib/llvm-17/bin");
    private static final List<String> INCLUDE_DIRS = List.of("/opt/rocm/include", "/usr/include");

    private HipToolchain() {
    }

    /**
     * @param tool an LLVM tool, e.g. {@code clang-offload-bundler}
     * @return its path: {@code $ROCM_PATH/llvm/bin}, then the usual ROCm and Debian LLVM folders
     */
    public static Optional<Path> llvmTool(String tool) {
        List<String> dirs = new ArrayList<>();
        String rocm = System.getenv("ROCM_PATH");
        if (rocm != null) {
            dirs.add(rocm + "/llvm/bin");
        }
        dirs.addAll(LLVM_DIRS);
        return dirs.stream().map(d -> Path.of(d, tool)).filter(Files::isExecutable).findFirst();
    }

    /** @return the folder holding {@code hip/hip_runtime_api.h} */
    public static Optional<Path> includeDir() {
        return Stream.concat(Optional.ofNullable(System.getenv("ROCM_PATH")).map(r -> r + "/include").stream(),
                INCLUDE_DIRS.stream()).map(Path::of).filter(d -> Files.isRegularFile(d.resolve("hip/hip_runtime_api.h")))
                .findFirst();
    }

    /**
     * Runs a tool to its end (at most a minute).
     *
     * @param cmd the command
     * @return its exit code and output (stdout and stderr together)
     */
    public static Run run(List<String> cmd) throws IOException, InterruptedException {
        // Output to a file, so that the wait below bounds a tool that hangs with its pipe open.
        Path log = Files.createTempFile("nccl4j-hip-tool", ".log");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                return new Run(-1, Files.readString(log) + "\n(killed after 60 s)");
            }
            return new Run(p.exitValue(), Files.readString(log));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /**
     * @param code   exit code
     * @param output what it printed
     */
    public record Run(int code, String output) {
    }
}
