package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's modular application: it requires {@code org.nccl4j.api} alone, and runs with the
 * API, the net SPI, the engine, the Socket net and Netty on the module path, no class path. The
 * engine and the net come in through their {@code provides}/{@code uses}; a missing export,
 * {@code requires} or service declaration fails the build or the run here, where the class path
 * (which every other test uses) would hide it.
 */
class ModulePathAppTest {
    private static final Pattern MODULE_PATH = Pattern.compile(
            ".*/(nccl-api|nccl-net-spi|nccl-core|nccl-net-socket)(/target/classes|/target/[^/]*\\.jar|/[^/]+/[^/]+\\.jar)$"
                    + "|.*/netty-[^/]*\\.jar$");

    private static final String MODULE_INFO = """
            module org.nccl4j.demo {
                requires org.nccl4j.api;
            }
            """;

    private static final String MAIN = """
            package org.nccl4j.demo;

            import java.lang.foreign.Arena;
            import java.lang.foreign.MemorySegment;
            import java.lang.foreign.ValueLayout;
            import java.util.List;
            import org.nccl4j.Communicator;
            import org.nccl4j.DataType;
            import org.nccl4j.Group;
            import org.nccl4j.Nccl;
            import org.nccl4j.RedOp;

            public final class Main {
                public static void main(String[] args) {
                    int n = 4096;
                    List<Communicator> comms = Nccl.commInitAll(2);
                    try (Arena arena = Arena.ofShared()) {
                        MemorySegment[] bufs = new MemorySegment[2];
                        for (int r = 0; r < 2; r++) {
                            bufs[r] = arena.allocate(ValueLayout.JAVA_INT, n);
                            for (int i = 0; i < n; i++) {
                                bufs[r].setAtIndex(ValueLayout.JAVA_INT, i, (r + 1) * i);
                            }
                        }
                        try (Group g = Nccl.group()) {
                            for (int r = 0; r < 2; r++) {
                                Communicator c = comms.get(r);
                                c.allReduce(bufs[r], bufs[r], n, DataType.INT32, RedOp.SUM, c.defaultStream());
                            }
                        }
                        for (int r = 0; r < 2; r++) {
                            comms.get(r).defaultStream().synchronize();
                            long sum = 0;
                            int wrong = 0;
                            for (int i = 0; i < n; i++) {
                                int v = bufs[r].getAtIndex(ValueLayout.JAVA_INT, i);
                                sum += v;
                                wrong += v == 3 * i ? 0 : 1;
                            }
                            System.out.println("rank " + r + " module " + comms.get(r).getClass().getModule().getName()
                                    + " sum " + sum + " wrong " + wrong);
                        }
                    } finally {
                        comms.forEach(Communicator::close);
                    }
                }
            }
            """;

    /** A third-party device backend: found through core's {@code uses}, it declines, host runs. */
    private static final String BACKEND_INFO = """
            module org.nccl4j.demo.backend {
                requires org.nccl4j.core;
                provides org.nccl4j.core.device.DeviceBackendProvider with org.nccl4j.demo.backend.DemoProvider;
            }
            """;

    private static final String BACKEND = """
            package org.nccl4j.demo.backend;

            import org.nccl4j.core.device.DeviceBackend;
            import org.nccl4j.core.device.DeviceBackendProvider;
            import org.nccl4j.core.device.DeviceUnavailableException;

            public final class DemoProvider implements DeviceBackendProvider {
                public String name() {
                    return "demo";
                }

                public int priority() {
                    return 10;
                }

                public DeviceBackend create() throws DeviceUnavailableException {
                    System.out.println("demo backend: create called");
                    throw new DeviceUnavailableException("no demo device here", null);
                }
            }
            """;

    @Test
    void aModularAppRequiringOnlyTheApiRunsAnAllReduceOnTheModulePath(@TempDir Path dir) throws Exception {
        List<String> path = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> MODULE_PATH.matcher(e).matches() && !e.endsWith("-tests.jar"))
                .collect(Collectors.toList());
        for (String m : List.of("nccl-api", "nccl-net-spi", "nccl-core", "nccl-net-socket", "netty-transport")) {
            assertTrue(path.stream().anyMatch(e -> e.contains("/" + m)), m + " not on the test class path: " + path);
        }
        String modulePath = String.join(File.pathSeparator, path);
        Path mods = dir.resolve("mods");
        assertEquals("", compile(dir, modulePath, "org.nccl4j.demo", MODULE_INFO, "Main", MAIN));
        assertEquals("", compile(dir, modulePath, "org.nccl4j.demo.backend", BACKEND_INFO, "DemoProvider", BACKEND));

        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> cmd = new ArrayList<>(List.of(java,
                "--enable-native-access=org.nccl4j.core,org.nccl4j.net.spi,io.netty.common,io.netty.transport.classes.epoll",
                "--module-path", mods + File.pathSeparator + modulePath,
                "-m", "org.nccl4j.demo/org.nccl4j.demo.Main"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output;
        try {
            boolean done = p.waitFor(60, TimeUnit.SECONDS);
            if (!done) {
                p.destroyForcibly();
            }
            output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(done, "the demo did not finish within 60 s:\n" + output);
        } finally {
            p.destroyForcibly();
        }
        assertEquals(0, p.exitValue(), output);
        long sum = 3L * 4096 * 4095 / 2;
        List<String> lines = output.lines().filter(l -> l.startsWith("rank ")).toList();
        assertTrue(output.contains("demo backend: create called"), output);
        assertEquals(List.of("rank 0 module org.nccl4j.core sum " + sum + " wrong 0",
                "rank 1 module org.nccl4j.core sum " + sum + " wrong 0"), lines, output);
    }

    @Test
    void theEnginesInternalsAreNotExported(@TempDir Path dir) throws Exception {
        String modulePath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> MODULE_PATH.matcher(e).matches() && !e.endsWith("-tests.jar"))
                .collect(Collectors.joining(File.pathSeparator));
        String errors = compile(dir, modulePath, "org.nccl4j.demo.peek", """
                module org.nccl4j.demo.peek {
                    requires org.nccl4j.core;
                }
                """, "Peek", """
                package org.nccl4j.demo.peek;

                public final class Peek {
                    org.nccl4j.core.kernel.Engine engine;
                }
                """);
        assertTrue(errors.contains("package org.nccl4j.core.kernel is declared in module org.nccl4j.core, which does not export it"),
                errors);
    }

    /** @return javac's diagnostics; empty when it compiled */
    private static String compile(Path dir, String modulePath, String module, String moduleInfo, String className,
            String source) throws Exception {
        Path src = dir.resolve("src/" + module);
        Path pkg = src.resolve(module.replace('.', '/'));
        Files.createDirectories(pkg);
        Files.writeString(src.resolve("module-info.java"), moduleInfo);
        Files.writeString(pkg.resolve(className + ".java"), source);
        java.io.StringWriter diagnostics = new java.io.StringWriter();
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        javac.getTask(diagnostics, null, null, List.of("--release", "25", "--module-path", modulePath,
                // An empty class path: javac in process would take the test JVM's, where the engine is unnamed.
                "--class-path", Files.createDirectories(dir.resolve("no-class-path")).toString(), "-d",
                dir.resolve("mods/" + module).toString()), null,
                javac.getStandardFileManager(null, null, StandardCharsets.UTF_8).getJavaFileObjects(
                        src.resolve("module-info.java"), pkg.resolve(className + ".java"))).call();
        return diagnostics.toString();
    }
}
