package org.nccl4j.gpu.hip.codeobject;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nccl4j.core.device.kernel.KernelEntries;
import org.nccl4j.gpu.hip.HipToolchain;

/**
 * The kernels the build put in the jar: a code object for every AMD target the build compiles
 * for, each holding every kernel the backend launches, as nccl4j's reader sees them and as the
 * ROCm toolchain's own {@code clang-offload-bundler} and {@code llvm-readelf} list them. Needs no GPU.
 */
class CodeObjectContentsTest {
    /** What build-code-objects.sh compiles for. */
    private static final List<String> TARGETS = List.of("gfx908", "gfx90a", "gfx940");

    private byte[] image;

    /** Per test, so that each is reported skipped with the reason. */
    @BeforeEach
    void read() {
        assumeFalse(Boolean.getBoolean("nccl4j.hip.skip"), "built with -Dnccl4j.hip.skip=true: the jar has no kernels");
        assertTrue(CodeObjectResource.present(), CodeObjectResource.NAME + " is missing from the build");
        image = CodeObjectResource.bytes();
    }

    @Test
    void aCodeObjectForEveryTargetAndTheEmptyHostEntry() {
        OffloadBundle b = OffloadBundle.parse(image);
        assertEquals(TARGETS, b.targets().stream().sorted().toList(), b.entries().toString());
        assertEquals(TARGETS.size() + 1, b.entries().size(), b.entries().toString());
        assertTrue(b.entries().stream().anyMatch(e -> e.id().startsWith("host-") && e.size() == 0), b.entries().toString());
    }

    @Test
    void everyCodeObjectHoldsExactlyTheKernelsTheBackendLaunches() {
        OffloadBundle b = OffloadBundle.parse(image);
        for (String target : TARGETS) {
            OffloadBundle.Entry e = b.codeObject(target).orElseThrow();
            assertEquals(new TreeSet<>(KernelEntries.ALL), new TreeSet<>(e.kernels()), e.toString());
        }
    }

    @Test
    void theToolchainListsTheSameTargetsAndKernels(@TempDir Path dir) throws Exception {
        Tools tools = toolsOrSkip();
        Path file = dir.resolve("kernels.hipfb");
        Files.write(file, image);
        HipToolchain.Run list = HipToolchain.run(List.of(tools.bundler().toString(), "--list", "--type=o",
                "--input=" + file));
        assertEquals(0, list.code(), list.output());
        Set<String> ids = new TreeSet<>(list.output().lines().map(String::strip).filter(l -> !l.isEmpty()).toList());
        Set<String> expected = new TreeSet<>(OffloadBundle.parse(image).entries().stream().map(OffloadBundle.Entry::id)
                .toList());
        assertEquals(expected, ids);
        for (String target : TARGETS) {
            Path co = unbundle(tools.bundler(), file, target);
            HipToolchain.Run symbols = HipToolchain.run(List.of(tools.readelf().toString(), "--symbols", "--wide",
                    co.toString()));
            assertEquals(0, symbols.code(), symbols.output());
            List<String> missing = new ArrayList<>();
            for (String k : KernelEntries.ALL) {
                // A kernel: a global function and its kernel descriptor (an object named <kernel>.kd).
                boolean function = symbols.output().lines().anyMatch(l -> l.matches(".*\\bFUNC\\s+GLOBAL\\b.*\\s" + k));
                boolean descriptor = symbols.output().lines().anyMatch(l -> l.matches(".*\\bOBJECT\\s+GLOBAL\\b.*\\s" + k
                        + "\\.kd"));
                if (!function || !descriptor) {
                    missing.add(k);
                }
            }
            assertTrue(missing.isEmpty(), target + " lacks " + missing);
        }
    }

    /**
     * The kernels' one parameter, their argument block, is laid out whole in every code object's
     * kernel argument segment (the AMDGPU metadata {@code llvm-readelf --notes} prints): 88 bytes
     * for the collectives, 8224 for Send/Recv, twice CUDA's classic 4 KiB, which the HIP runtime
     * must then accept at launch (checked only on an AMD GPU).
     */
    @Test
    void everyKernelTakesItsWholeArgumentBlockByValue(@TempDir Path dir) throws Exception {
        Tools tools = toolsOrSkip();
        int coll = engineConstant("CollArgs", "COLL_BYTES");
        int p2p = engineConstant("P2pArgs", "BYTES");
        Path file = dir.resolve("kernels.hipfb");
        Files.write(file, image);
        for (String target : TARGETS) {
            HipToolchain.Run notes = HipToolchain.run(List.of(tools.readelf().toString(), "--notes",
                    unbundle(tools.bundler(), file, target).toString()));
            assertEquals(0, notes.code(), notes.output());
            Map<String, int[]> args = kernelArgs(notes.output());
            assertEquals(new TreeSet<>(KernelEntries.ALL), new TreeSet<>(args.keySet()), target);
            for (Map.Entry<String, int[]> k : args.entrySet()) {
                int expected = k.getKey().equals(KernelEntries.SEND_RECV) ? p2p : coll;
                assertEquals(expected, k.getValue()[0], target + " " + k.getKey() + ": its by-value argument's size");
                assertTrue(k.getValue()[1] >= expected, target + " " + k.getKey() + ": kernarg segment of "
                        + k.getValue()[1] + " bytes");
            }
        }
    }

    /**
     * @return per kernel of the AMDGPU metadata (YAML: a kernel's keys 4 spaces in, its arguments'
     *     6 and 8): its first argument's size if passed by value (else -1), and its kernarg segment's
     */
    private static Map<String, int[]> kernelArgs(String notes) {
        Map<String, int[]> kernels = new TreeMap<>();
        int[] k = null;
        String name = null;
        int arg = 0;
        for (String line : notes.lines().toList()) {
            if (line.startsWith("  - ")) {
                if (name != null) {
                    kernels.put(name, k);
                }
                k = new int[] {-1, -1};
                name = null;
                arg = 0;
                line = "    " + line.substring(4);
            }
            if (k == null) {
                continue;
            }
            if (line.startsWith("      - ")) {
                arg++;
                line = "        " + line.substring(8);
            }
            String key = line.strip();
            if (line.startsWith("        ") && arg == 1 && key.startsWith(".size:")) {
                k[0] = Integer.parseInt(key.substring(6).strip());
            } else if (line.startsWith("        ") && arg == 1 && key.startsWith(".value_kind:") && !key.endsWith("by_value")) {
                k[0] = -1;
            } else if (line.startsWith("    .kernarg_segment_size:")) {
                k[1] = Integer.parseInt(key.substring(22).strip());
            } else if (line.startsWith("    .name:")) {
                name = key.substring(6).strip();
            }
        }
        if (name != null) {
            kernels.put(name, k);
        }
        return kernels;
    }

    /** The ROCm toolchain's LLVM tools that read bundles and code objects. */
    private record Tools(Path bundler, Path readelf) {
    }

    private static Tools toolsOrSkip() {
        Optional<Path> bundler = HipToolchain.llvmTool("clang-offload-bundler");
        Optional<Path> readelf = HipToolchain.llvmTool("llvm-readelf");
        assumeTrue(bundler.isPresent() && readelf.isPresent(),
                "no clang-offload-bundler or llvm-readelf (Debian: apt-get install hipcc, which brings LLVM 15)");
        return new Tools(bundler.get(), readelf.get());
    }

    /** A size the engine packs by (package-private in nccl-core: read as the launcher uses it). */
    private static int engineConstant(String cls, String field) throws ReflectiveOperationException {
        Field f = Class.forName("org.nccl4j.core.device.gpu.engine." + cls).getDeclaredField(field);
        f.setAccessible(true);
        return f.getInt(null);
    }

    private static Path unbundle(Path bundler, Path file, String target) throws Exception {
        Path co = file.resolveSibling(target + ".co");
        HipToolchain.Run unbundle = HipToolchain.run(List.of(bundler.toString(), "--unbundle", "--type=o",
                "--input=" + file, "--targets=" + OffloadBundle.HIP_PREFIX + target, "--output=" + co));
        assertEquals(0, unbundle.code(), unbundle.output());
        return co;
    }
}
