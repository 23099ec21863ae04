package org.nccl4j.core.topo.search;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.topo.paths.PathComputer;
import org.nccl4j.core.topo.paths.PathPolicy;
import org.nccl4j.core.topo.system.NodeType;
import org.nccl4j.core.topo.system.TopoSystem;
import org.nccl4j.core.topo.system.TopoSystemBuilder;
import org.nccl4j.core.topo.xml.TopoDialect;
import org.nccl4j.core.topo.xml.XmlReader;
import org.nccl4j.core.topo.xml.XmlWriter;

class SearchRoundTripTest {
    @TempDir
    Path dir;

    private static byte[] resource(String name) {
        try (InputStream in = SearchRoundTripTest.class.getResourceAsStream("/topo/" + name)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A single-node system ready for the search: paths, trim (NETs go), paths, init. */
    private static TopoSystem singleNode(byte[] xml, TopoDialect dialect) {
        TopoSystem s = TopoSystemBuilder.build(XmlReader.readTopology(xml, dialect), dialect);
        int ngpus = s.count(NodeType.GPU);
        PathComputer.computePaths(s, null, PathPolicy.DEFAULT);
        PathComputer.trimSystem(s, s.node(NodeType.GPU, 0).rank, ngpus);
        PathComputer.computePaths(s, null, PathPolicy.DEFAULT);
        GraphSearch.searchInit(s);
        return s;
    }

    private static TopoGraph ring(TopoSystem s, Path graphFile) {
        TopoGraph g = new TopoGraph();
        g.pattern = TopoGraph.PATTERN_RING;
        g.crossNic = 2;
        g.minChannels = 1;
        g.maxChannels = TopoGraph.MAXCHANNELS / 2;
        GraphSearch.compute(s, g, graphFile);
        return g;
    }

    @Test
    void dumpedGraphLoadsBackAndSkipsTheSearch() throws IOException {
        TopoSystem s = singleNode(resource("topologies/dgx1v.xml"), TopoDialect.NCCL);
        TopoGraph searched = ring(s, null);
        Path file = dir.resolve("graph.xml");
        XmlWriter.write(file, GraphXml.toXml(List.of(searched), s));
        String text = Files.readString(file);
        assertTrue(text.startsWith("<graphs version=\"1\">\n  <graph id=\"0\" pattern=\"4\" crossnic=\"0\" nchannels=\"6\" "
                + "speedintra=\"22\" speedinter=\"22\" typeintra=\"NVL\" typeinter=\"PIX\" samechannels=\"0\">\n"), text);
        assertEquals(text, XmlWriter.toText(XmlReader.readGraphs(file)));

        TopoGraph loaded = ring(s, file);
        assertEquals(searched.nChannels, loaded.nChannels);
        assertEquals(searched.speedIntra, loaded.speedIntra);
        assertEquals(searched.typeIntra, loaded.typeIntra);
        int n = searched.nChannels * s.count(NodeType.GPU);
        assertArrayEquals(Arrays.copyOf(searched.intra, n), Arrays.copyOf(loaded.intra, n));
    }

    @Test
    void graphFileComesFromConfig() throws IOException {
        TopoSystem s = singleNode(resource("topologies/p9_4gpu.xml"), TopoDialect.NCCL);
        TopoGraph searched = ring(s, null);
        Path file = dir.resolve("g.xml");
        Config config = Config.of(new Properties(), Map.of("NCCL_GRAPH_DUMP_FILE", file.toString()), dir.resolve("none"));
        GraphXml.dump(config, s, List.of(searched));
        TopoGraph g = new TopoGraph();
        g.pattern = TopoGraph.PATTERN_RING;
        g.maxChannels = 16;
        GraphSearch.compute(s, g, Config.of(new Properties(), Map.of("NCCL_GRAPH_FILE", file.toString()), dir.resolve("none")));
        assertEquals(searched.nChannels, g.nChannels);
    }

    static Stream<String> rcclModels() throws IOException {
        try (InputStream in = SearchRoundTripTest.class.getResourceAsStream("/topo/rccl/")) {
            String list = new String(in.readAllBytes());
            return list.lines().filter(f -> f.endsWith(".xml")).sorted().toList().stream();
        }
    }

    @ParameterizedTest
    @MethodSource("rcclModels")
    void rcclModelLoadsAndRingsVisitEveryGpuOnce(String file) {
        TopoSystem s = singleNode(resource("rccl/" + file), TopoDialect.RCCL);
        int ngpus = s.count(NodeType.GPU);
        assertTrue(ngpus > 0, file);
        TopoGraph g = ring(s, null);
        assertTrue(g.nChannels > 0, file);
        for (int c = 0; c < g.nChannels; c++) {
            BitSet seen = new BitSet();
            for (int i = 0; i < ngpus; i++) {
                int rank = g.intra[c * ngpus + i];
                assertTrue(s.rankToIndex(rank) >= 0 && !seen.get(rank), file + " channel " + c);
                seen.set(rank);
            }
            assertEquals(ngpus, seen.cardinality(), file);
        }
    }
}
