package org.nccl4j.core.topo.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.topo.search.TopoGraph;
import org.nccl4j.core.topo.tuning.TuningContext;
import org.nccl4j.core.topo.tuning.TuningModel;
import org.nccl4j.core.topo.tuning.TuningPrinter;
import org.nccl4j.core.topo.tuning.TuningProfile;

/**
 * Steps 2 (end) and 3 of the golden simulation (resources {@code topo/README.md}) from the
 * graphs printed in each golden file: Preset for every rank, node detection, alignment and
 * Postset for every rank, then the tuning model of rank 0; the {@code RANK}, {@code RCH},
 * {@code RING}, {@code TUNE} and {@code TIME} lines must equal the reference byte for byte
 * ({@code P2P} belongs to the paths code and is skipped).
 */
class ConnectTuningGoldenTest {
    static List<String> files() {
        return GoldenCase.files();
    }

    @ParameterizedTest
    @MethodSource("files")
    void connectAndTuningMatchReference(String file) {
        GoldenCase g = GoldenCase.load(file);
        List<String> expected = g.lines().stream().filter(ConnectTuningGoldenTest::compared).toList();
        assertTrue(expected.stream().anyMatch(l -> l.startsWith("TIME ")), file + ": nothing to compare");
        List<String> actual = simulate(g, config(g.env()));
        for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
            if (!expected.get(i).equals(actual.get(i))) {
                fail(file + " line " + i + "\nexpected: " + expected.get(i) + "\nactual:   " + actual.get(i));
            }
        }
        assertEquals(expected.size(), actual.size(), file + ": line count");
    }

    private static boolean compared(String line) {
        return line.startsWith("RANK ") || line.startsWith("  RCH ") || line.startsWith("  RING ")
                || line.startsWith("TUNE ") || line.startsWith("TIME ");
    }

    /** NCCL's defaults apply: only the MANIFEST's variables are set (channel bounds: NCCL's "unset"). */
    private static Config config(Map<String, String> manifestEnv) {
        Map<String, String> env = new HashMap<>(manifestEnv);
        // NCCL's unset value (0 / 32 channels), pinned so the goldens do not depend on nccl4j's defaults.
        env.putIfAbsent("NCCL_MIN_NCHANNELS", "-2");
        env.putIfAbsent("NCCL_MAX_NCHANNELS", "-2");
        return Config.of(new Properties(), env, Path.of("/nonexistent/nccl.conf"));
    }

    static List<String> simulate(GoldenCase g, Config config) {
        int nRanks = g.nRanks();
        ChannelTopology[] comms = new ChannelTopology[nRanks];
        TopoGraph[][] graphs = new TopoGraph[nRanks][];
        RankConnectInfo[] all = new RankConnectInfo[nRanks];
        for (int r = 0; r < nRanks; r++) {
            graphs[r] = new TopoGraph[] {g.graphOfRank(g.tree(), r), g.graphOfRank(g.ring(), r),
                g.graphOfRank(g.collNet(), r)};
            comms[r] = new ChannelTopology(r, nRanks, g.gpusPerNode());
            comms[r].collNetSupport = 0;
            all[r] = TopoConnect.preset(comms[r], graphs[r][0], graphs[r][1], graphs[r][2]);
        }
        List<String> out = new ArrayList<>();
        for (int r = 0; r < nRanks; r++) {
            ChannelTopology comm = comms[r];
            int[] rings = TopoConnect.postset(comm, all, graphs[r][0], graphs[r][1], graphs[r][2], config);
            out.addAll(ConnectPrinter.lines(comm, rings, r == 0));
            if (r == 0) {
                TuningContext ctx = new TuningContext(r, nRanks, comm.nNodes, comm.nChannels, comm.collNetSupport,
                        comm.channel(0).collTree.nHeads, g.minCompCap(), g.maxCompCap(), g.cpu());
                TuningModel model = TuningModel.compute(ctx, graphs[r][0], graphs[r][1], graphs[r][2],
                        TuningProfile.NCCL_GPU, config);
                out.addAll(TuningPrinter.tuneLines(model));
                out.addAll(TuningPrinter.timeLines(model, TuningPrinter.TIME_SIZES));
            }
        }
        return out;
    }
}
