package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.topo.tuning.Algorithm;
import org.nccl4j.core.topo.tuning.TuningProfile;
import org.nccl4j.core.proto.Protocol;

/**
 * The README's "Host tuning tables" give the constants of {@link TuningProfile#HOST}: each row's
 * one-node and several-node figures are the profile's, and what the table calls "the same"
 * (every algorithm and protocol, NVLink as PCI, 3+ nodes as 2) is so in the profile.
 */
class ReadmeHostTuningTest {
    private static final Pattern NUMBER = Pattern.compile("\\d+(?:\\.\\d+)?");
    private static final TuningProfile H = TuningProfile.HOST;

    /** First cell of each row of the table, then the numbers of its next two cells. */
    private static Map<String, List<Float>> table() throws IOException {
        List<String> lines = Files.readAllLines(Path.of(System.getProperty("user.dir")).getParent().resolve("README.md"));
        int from = lines.indexOf("| constant of `TuningProfile.HOST` | one node | several nodes | measured as |");
        Map<String, List<Float>> rows = new LinkedHashMap<>();
        for (int i = from + 2; i < lines.size() && lines.get(i).startsWith("| `"); i++) {
            String[] cells = lines.get(i).split(" \\| ");
            List<Float> values = new ArrayList<>();
            Matcher m = NUMBER.matcher(cells[1] + " " + cells[2]);
            while (m.find()) {
                values.add(Float.parseFloat(m.group()));
            }
            rows.put(cells[0].substring(2), values);
        }
        return rows;
    }

    private static List<Float> row(Algorithm a) {
        List<Float> out = new ArrayList<>();
        for (Protocol p : Protocol.values()) {
            assertEquals(H.hwLat(TuningProfile.HW_PCI, a, p), H.hwLat(TuningProfile.HW_NVLINK, a, p), "NVLink as PCI");
            out.add(H.hwLat(TuningProfile.HW_PCI, a, p));
        }
        return out;
    }

    /** Asserts every value is the first one and returns it. */
    private static float same(List<Float> values) {
        values.forEach(v -> assertEquals(values.get(0), v, "the table says these are the same: " + values));
        return values.get(0);
    }

    @Test
    void tableIsTheHostProfile() throws IOException {
        List<Float> base = new ArrayList<>();
        List<Float> net = new ArrayList<>();
        List<Float> correction = new ArrayList<>();
        for (Algorithm a : Algorithm.NCCL) {
            for (Protocol p : Protocol.values()) {
                base.add(H.baseLat(a, p));
                net.add(H.hwLat(TuningProfile.HW_NET, a, p));
            }
        }
        for (Protocol p : Protocol.values()) {
            for (int b = 0; b < 23; b++) {
                correction.add(H.treeCorrectionFactor(p, b));
            }
        }
        assertEquals(1.0f, same(correction), "Trees get no correction factor");
        float ll128 = (float) H.ll128MaxBwPerCh();
        Map<String, List<Float>> expected = new LinkedHashMap<>();
        expected.put("`baseLat`, µs (every algorithm and protocol)", List.of(same(base), same(base)));
        expected.put("`hwLat` PCI (NVLink the same), Ring LL / LL128 / Simple, µs per step", row(Algorithm.RING));
        expected.put("`hwLat` PCI (NVLink the same), Tree LL / LL128 / Simple, µs per step", row(Algorithm.TREE));
        expected.put("`hwLat` NET, µs per step (every algorithm and protocol)", List.of(same(net)));
        expected.put("`maxBusBws`, GB/s", List.of(H.maxBusBw(0), same(List.of(H.maxBusBw(1), H.maxBusBw(2)))));
        expected.put("`llMaxBws`, GB/s", List.of(same(List.of((float) H.llMaxBw(0, 0), (float) H.llMaxBw(1, 0))),
                same(List.of((float) H.llMaxBw(0, 1), (float) H.llMaxBw(0, 2), (float) H.llMaxBw(1, 1), (float) H.llMaxBw(1, 2)))));
        expected.put("`ll128MaxBwPerCh`, GB/s", List.of(ll128, ll128));
        expected.put("`perChMaxTreeBws`, GB/s", List.of(
                same(List.of((float) H.perChMaxTreeBw(0, 0), (float) H.perChMaxTreeBw(1, 0))),
                same(List.of((float) H.perChMaxTreeBw(0, 1), (float) H.perChMaxTreeBw(0, 2),
                        (float) H.perChMaxTreeBw(1, 1), (float) H.perChMaxTreeBw(1, 2)))));
        assertEquals(expected, table());
    }
}
