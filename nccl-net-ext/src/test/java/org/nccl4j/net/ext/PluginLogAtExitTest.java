package org.nccl4j.net.ext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A plugin that logs from its atexit cleanup through the logger it was given (the AtExit
 * fixture): the shim must not call into Java from the thread that runs exit(), where HotSpot
 * aborts the process ("wrong thread state for upcall", exit 134), but write the line to stderr
 * itself. Lines from a plugin thread of its own still reach Java while the JVM runs.
 */
class PluginLogAtExitTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"return", "exit", "halt"})
    void aLineLoggedAtExitGoesToStderrAndTheJvmExitsNormally(String end) throws IOException, InterruptedException {
        Path out = dir.resolve("stdout");
        Path err = dir.resolve("stderr");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                AtExitChild.class.getName(), Fixtures.library("atexit"), end)
                .directory(dir.toFile()) // where an hs_err file of a crash would go
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        List<String> stdout = Files.readAllLines(out, StandardCharsets.UTF_8);
        List<String> stderr = Files.readAllLines(err, StandardCharsets.UTF_8);
        String both = "stdout:\n" + String.join("\n", stdout) + "\nstderr:\n" + String.join("\n", stderr);
        assertEquals(0, p.isAlive() ? -1 : p.exitValue(), both);
        assertTrue(stdout.contains("java: 3 NET/AtExit : hello from a plugin thread"), both);
        assertTrue(stdout.contains("init ok"), both);
        String cleanup = "NCCL INFO NET/AtExit : atexit cleanup of process " + p.pid();
        assertEquals(1, stderr.stream().filter(l -> l.endsWith(cleanup)).count(), both);
        assertTrue(stdout.stream().noneMatch(l -> l.contains("atexit cleanup")), both);
    }
}
