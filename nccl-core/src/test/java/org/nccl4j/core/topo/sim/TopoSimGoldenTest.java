package org.nccl4j.core.topo.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs {@link TopoSimulator} for every job of {@code topo/golden/MANIFEST.txt} and compares the
 * whole output with NCCL v2.10.3's reference file, byte for byte: with every rank searching, as
 * NCCL does, and with one search per node ({@link TopoSimulator.SearchMode#ONCE_PER_NODE}).
 */
class TopoSimGoldenTest {
    /** A manifest entry: golden file, environment, topology file, node count. */
    record Job(String file, Map<String, String> env, String topology, int nNodes) {
        @Override
        public String toString() {
            return file;
        }
    }

    static String resource(String name) {
        try (InputStream in = TopoSimGoldenTest.class.getResourceAsStream("/topo/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path resourcePath(String name) {
        try {
            return Path.of(TopoSimGoldenTest.class.getResource("/topo/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Stream<Job> jobs() {
        List<Job> jobs = new ArrayList<>();
        for (String line : resource("golden/MANIFEST.txt").lines().toList()) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.trim().split("\\s+");
            if (f[1].equals("trees_dump")) {
                continue;
            }
            Map<String, String> env = new HashMap<>();
            for (int i = 1; i < f.length - 2; i++) {
                String[] kv = f[i].split("=", 2);
                env.put(kv[0], kv[1]);
            }
            jobs.add(new Job(f[0], env, f[f.length - 2], Integer.parseInt(f[f.length - 1])));
        }
        return jobs.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jobs")
    void matchesGolden(Job job) {
        StringBuilder out = new StringBuilder();
        long t0 = System.nanoTime();
        List<TopoSimulator.RankState> states = TopoSimulator.run(resourcePath("topologies/" + job.topology()), job.nNodes(),
                job.env(), out);
        long t1 = System.nanoTime();
        long search = states.stream().mapToLong(TopoSimulator.RankState::searchNanos).sum();
        System.out.printf("TIMING %-42s ranks=%2d total=%7.1f ms, paths+search per rank=%7.2f ms%n", job.file(), states.size(),
                (t1 - t0) / 1e6, search / 1e6 / states.size());
        assertEquals(resource("golden/" + job.file()), out.toString());
    }

    /** The property tests' cheaper mode must print exactly what every rank's own search prints. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jobs")
    void matchesGoldenSearchingOncePerNode(Job job) {
        StringBuilder out = new StringBuilder();
        TopoSimulator.run(resourcePath("topologies/" + job.topology()), job.nNodes(), job.env(), out,
                TopoSimulator.SearchMode.ONCE_PER_NODE);
        assertEquals(resource("golden/" + job.file()), out.toString());
    }
}
