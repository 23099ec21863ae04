package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/jvm-cache}, the JVM options {@code ./nccl4j} and its rank JVMs run with: the
 * AOT cache it names is recorded by a training run, a JVM started with its options loads nccl4j's
 * classes from it, as {@code -Xlog:class+load} reports them, and below the core count for
 * profiles the JVM runs with their replay off, as its final flags say.
 */
class JvmCacheScriptTest {
    private static final Path SCRIPT = Path.of("..", "scripts", "jvm-cache").toAbsolutePath().normalize();
    private static final String JAVA = ProcessHandle.current().info().command()
            .orElse(System.getProperty("java.home") + "/bin/java");
    private static final String MAIN = "org.nccl4j.examples.Main";
    /** The class path, of jars only (what ./nccl4j runs with; a cache takes no class directories). */
    private static String cp;

    @BeforeAll
    static void jarsOnly(@TempDir Path dir) throws IOException {
        List<String> jars = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path p = Path.of(e);
            if (!Files.isDirectory(p)) {
                jars.add(e);
            } else if (!p.endsWith("test-classes")) {
                // This module's classes, packed as the build packs them.
                Path jar = dir.resolve(p.getParent().getParent().getFileName() + ".jar");
                int rc = ToolProvider.findFirst("jar").orElseThrow().run(System.out, System.err,
                        "--create", "--file", jar.toString(), "-C", p.toString(), ".");
                assertEquals(0, rc, "jar of " + p);
                jars.add(jar.toString());
            }
        }
        cp = String.join(java.io.File.pathSeparator, jars);
    }

    @Test
    void fromItsCoreCountAnAotCacheRecordedByATrainingRunServesNccl4jsClasses(@TempDir Path dir) throws Exception {
        Path cache = dir.resolve("c");
        Path aot = dir.resolve("c.aot");
        // AOT from 1 core: on any machine; started as a rank of a job elsewhere, which the
        // recording run must not try to join.
        String opts = jvmCache(cache, "1", Map.of("NCCL4J_RANK", "1", "NCCL4J_NRANKS", "2", "NCCL_COMM_ID",
                "127.0.0.1:1", "OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2"), List.of(cp));
        assertTrue(Files.isRegularFile(aot), () -> "no AOT cache at " + aot + "; " + listing(dir));
        assertTrue(opts.contains("-XX:AOTCache=" + aot), opts);
        assertEquals("nccl4j.aot loaded " + MAIN, "nccl4j.aot loaded " + source(opts, MAIN));
        assertEquals("AOTReplayTraining true", "AOTReplayTraining " + finalFlag(opts, "AOTReplayTraining"));

        // Made once a build: a later call keeps it, a newer build stamp records it again.
        FileTime made = Files.getLastModifiedTime(aot);
        Path stamp = dir.resolve("stamp");
        Files.writeString(stamp, "");
        Files.setLastModifiedTime(stamp, FileTime.fromMillis(made.toMillis() - 60_000));
        jvmCache(cache, "1", stamp.toString());
        assertEquals(made, Files.getLastModifiedTime(aot), "recorded again though the build is older");
        Files.setLastModifiedTime(stamp, FileTime.fromMillis(made.toMillis() + 60_000));
        jvmCache(cache, "1", stamp.toString());
        assertTrue(Files.getLastModifiedTime(aot).compareTo(made) > 0, "not recorded again for a newer build");
    }

    @Test
    void belowItTheCacheServesTheClassesWithoutReplayingItsProfiles(@TempDir Path dir) throws Exception {
        Path cache = dir.resolve("c");
        Path aot = dir.resolve("c.aot");
        String opts = jvmCache(cache, "100000");
        assertTrue(Files.isRegularFile(aot), () -> "no AOT cache at " + aot + "; " + listing(dir));
        assertTrue(opts.contains("-XX:AOTCache=" + aot), opts);
        assertEquals("nccl4j.aot loaded " + MAIN, "nccl4j.aot loaded " + source(opts, MAIN));
        // The classes of the collective path too, which only a training run loads.
        assertEquals("nccl4j.aot loaded org.nccl4j.core.kernel.Prims",
                "nccl4j.aot loaded " + source(opts, "org.nccl4j.core.kernel.Prims", "perf", "--threads", "2", "-b", "8",
                        "-e", "8", "-n", "1", "-w", "0"));
        assertEquals("AOTReplayTraining false", "AOTReplayTraining " + finalFlag(opts, "AOTReplayTraining"));
    }

    @Test
    void aRecordingThatFailsLeavesNoCacheAndIsNotRetriedUntilTheNextBuild(@TempDir Path dir) throws Exception {
        Path cache = dir.resolve("c");
        Path aot = dir.resolve("c.aot");
        Path failed = dir.resolve("c.aot.failed");
        Files.writeString(aot, "a previous build's cache");
        Path stamp = dir.resolve("stamp");
        Files.writeString(stamp, "");
        Files.setLastModifiedTime(stamp, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
        // No nccl4j on this class path: the recording run fails at once.
        String opts = jvmCache(cache, "1", Map.of(), List.of(dir.toString()), stamp.toString());
        assertFalse(opts.contains("AOTCache"), opts);
        assertFalse(Files.exists(aot), "the previous build's cache is still there");
        assertTrue(Files.isRegularFile(failed), () -> "no failure mark: " + listing(dir));
        FileTime marked = Files.getLastModifiedTime(failed);
        // Failed for this build: not tried again (the mark would be touched anew).
        Files.setLastModifiedTime(failed, FileTime.fromMillis(marked.toMillis() + 120_000));
        marked = Files.getLastModifiedTime(failed);
        assertFalse(jvmCache(cache, "1", Map.of(), List.of(dir.toString()), stamp.toString()).contains("AOTCache"));
        assertEquals(marked, Files.getLastModifiedTime(failed), "recorded again for a build it failed for");
    }

    /**
     * @return {@code className} if a JVM started with {@code opts} loaded it from its cache or
     *     archive, else where it loaded it from (or "(never loaded)")
     */
    private static String source(String opts, String className, String... args) throws Exception {
        String marker = " " + className + " source: ";
        for (String line : run(opts + " -Xlog:class+load=info", args.length == 0 ? new String[] {"--version"} : args)) {
            int at = line.indexOf(marker);
            if (at >= 0) {
                String source = line.substring(at + marker.length());
                return source.startsWith("shared objects file") ? className : source;
            }
        }
        return "(never loaded)";
    }

    /**
     * @return the value the JVM started with {@code opts} gives {@code flag} ({@code -XX:+PrintFlagsFinal},
     *     diagnostic flags included)
     */
    private static String finalFlag(String opts, String flag) throws Exception {
        for (String line : run(opts + " -XX:+UnlockDiagnosticVMOptions -XX:+PrintFlagsFinal", "--version")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[1].equals(flag) && f[2].equals("=")) {
                return f[3];
            }
        }
        return "(not printed)";
    }

    private static String jvmCache(Path cache, String minCores, String... stamp) throws Exception {
        return jvmCache(cache, minCores, Map.of(), List.of(cp), stamp);
    }

    private static String jvmCache(Path cache, String minCores, Map<String, String> env, List<String> classPath,
                                   String... stamp) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(SCRIPT.toString(), JAVA, String.join(java.io.File.pathSeparator,
                classPath), cache.toString()));
        cmd.addAll(List.of(stamp));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put("AOT_PROFILE_MIN_CORES", minCores);
        pb.environment().remove("NCCL4J_CHILD_JAVA_OPTS");
        pb.environment().putAll(env);
        List<String> out = finish(pb, cmd);
        assertEquals(1, out.size(), "one line of options: " + out);
        return out.get(0);
    }

    /** @return the names in {@code dir}, for a failure's message */
    private static List<String> listing(Path dir) {
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            return List.of("(unreadable: " + e + ")");
        }
    }

    private static List<String> run(String opts, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(List.of(opts.trim().split("\\s+")));
        cmd.addAll(List.of("-cp", cp, MAIN));
        cmd.addAll(List.of(args));
        return finish(new ProcessBuilder(cmd).redirectErrorStream(true), cmd);
    }

    private static List<String> finish(ProcessBuilder pb, List<String> cmd) throws IOException, InterruptedException {
        Path out = Files.createTempFile("jvm-cache-test", ".out");
        try {
            Process p = pb.redirectOutput(out.toFile()).start();
            p.getOutputStream().close();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw new AssertionError("did not end within 120 s: " + cmd + "\n" + Files.readString(out));
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), cmd + " failed:\n" + text);
            return text.lines().toList();
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
