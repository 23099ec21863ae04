package org.nccl4j.core.topo.connect;

import org.nccl4j.core.topo.system.Cpu;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.nccl4j.core.topo.search.TopoGraph;
import org.nccl4j.core.topo.tuning.CpuType;

/**
 * One golden reference output of {@code src/test/resources/topo/golden} (see the README there),
 * read back into what connect and tuning need: the environment of {@code MANIFEST.txt}, the job
 * shape of the {@code SIM} line, the graphs of the {@code GRAPH}/{@code GCH} blocks (rank 0's
 * node), and the CPU type and compute capabilities of the topology XML.
 */
record GoldenCase(String file, Map<String, String> env, String topology, int nNodes, int gpusPerNode, int nRanks,
                  TopoGraph ring, TopoGraph tree, TopoGraph collNet, CpuType cpu, int minCompCap, int maxCompCap,
                  List<String> lines) {
    private static final String ROOT = "/topo/";
    private static final List<String> PATH_TYPES = List.of("LOC", "NVL", "NVB", "PIX", "PXB", "PHB", "SYS");
    private static final Pattern GRAPH = Pattern.compile("GRAPH rank=0 name=(\\w+) pattern=(\\d+) nChannels=(\\d+) "
            + "speedIntra=(\\S+) speedInter=(\\S+) typeIntra=(\\w+) typeInter=(\\w+) sameChannels=(\\d+) crossNic=(\\d+)");
    private static final Pattern GCH = Pattern.compile("  GCH +(\\d+) :(.*)");
    private static final Pattern SIM = Pattern.compile("SIM file=\\S+ nNodes=(\\d+) gpusPerNode=(\\d+) nRanks=(\\d+)");

    /** @return the golden files of {@code MANIFEST.txt} that simulate a job, with their environment */
    static List<String> files() {
        return new ArrayList<>(manifest().keySet());
    }

    static GoldenCase load(String file) {
        String[] entry = manifest().get(file);
        Map<String, String> env = new HashMap<>();
        for (int i = 0; i < entry.length - 2; i++) {
            String[] kv = entry[i].split("=", 2);
            env.put(kv[0], kv[1]);
        }
        String topology = entry[entry.length - 2];
        List<String> lines = read("golden/" + file).lines().toList();
        Matcher sim = SIM.matcher(lines.getFirst());
        if (!sim.matches()) {
            throw new IllegalStateException(file + ": no SIM line");
        }
        Map<String, TopoGraph> graphs = new LinkedHashMap<>();
        TopoGraph current = null;
        for (String line : lines) {
            Matcher g = GRAPH.matcher(line);
            Matcher c = GCH.matcher(line);
            if (g.matches()) {
                current = graph(g);
                graphs.put(g.group(1), current);
            } else if (c.matches() && current != null) {
                addChannel(current, Integer.parseInt(c.group(1)), c.group(2));
            }
        }
        String xml = read("topologies/" + topology);
        int[] compCap = compCaps(xml);
        return new GoldenCase(file, env, topology, Integer.parseInt(sim.group(1)), Integer.parseInt(sim.group(2)),
                Integer.parseInt(sim.group(3)), graphs.get("RING"), graphs.get("TREE"), graphs.get("COLLNET"),
                cpuType(xml), compCap[0], compCap[1], lines);
    }

    /** @return the graph as rank {@code rank}'s node sees it: GPU ranks shifted by node x G */
    TopoGraph graphOfRank(TopoGraph graph, int rank) {
        TopoGraph g = new TopoGraph();
        g.copyFrom(graph);
        int shift = rank / gpusPerNode * gpusPerNode;
        for (int i = 0; i < graph.nChannels * gpusPerNode; i++) {
            g.intra[i] += shift;
        }
        return g;
    }

    private static TopoGraph graph(Matcher m) {
        TopoGraph g = new TopoGraph();
        g.id = switch (m.group(1)) {
            case "RING" -> 0;
            case "TREE" -> 1;
            default -> 2;
        };
        g.pattern = Integer.parseInt(m.group(2));
        g.nChannels = Integer.parseInt(m.group(3));
        g.speedIntra = Float.parseFloat(m.group(4));
        g.speedInter = Float.parseFloat(m.group(5));
        g.typeIntra = PATH_TYPES.indexOf(m.group(6));
        g.typeInter = PATH_TYPES.indexOf(m.group(7));
        g.sameChannels = Integer.parseInt(m.group(8));
        g.crossNic = Integer.parseInt(m.group(9));
        g.collNet = g.id == 2 ? 1 : 0;
        return g;
    }

    private static void addChannel(TopoGraph g, int c, String body) {
        List<Integer> gpus = new ArrayList<>();
        List<Integer> nets = new ArrayList<>();
        for (String token : body.trim().split(" +")) {
            int id = Integer.parseInt(token.substring(token.indexOf('/') + 1));
            (token.startsWith("GPU/") ? gpus : nets).add(id);
        }
        for (int i = 0; i < gpus.size(); i++) {
            g.intra[c * gpus.size() + i] = gpus.get(i);
        }
        if (nets.size() == 2) {
            g.inter[2 * c] = nets.get(0);
            g.inter[2 * c + 1] = nets.get(1);
        }
    }

    /**
     * The first {@code cpu} element's codes, as {@code ncclTopoAddCpu} derives them: arch from
     * {@code arch}; vendor only on x86; Intel model SKL for family 6 model &ge; 0x55, else BDW.
     */
    private static CpuType cpuType(String xml) {
        Matcher m = Pattern.compile("<cpu ([^>]*)>").matcher(xml);
        if (!m.find()) {
            throw new IllegalStateException("no cpu element");
        }
        String attrs = m.group(1);
        int arch = switch (attr(attrs, "arch")) {
            case "x86_64" -> Cpu.ARCH_X86;
            case "arm64" -> Cpu.ARCH_ARM;
            case "ppc64" -> Cpu.ARCH_POWER;
            default -> 0;
        };
        int vendor = 0;
        int model = 0;
        if (arch == Cpu.ARCH_X86) {
            vendor = switch (attr(attrs, "vendor")) {
                case "GenuineIntel" -> Cpu.VENDOR_INTEL;
                case "AuthenticAMD" -> Cpu.VENDOR_AMD;
                default -> 0;
            };
            if (vendor == Cpu.VENDOR_INTEL) {
                int family = Integer.parseInt(attr(attrs, "familyid"));
                int modelId = Integer.parseInt(attr(attrs, "modelid"));
                model = family == 6 && modelId >= 0x55 ? Cpu.TYPE_SKL : Cpu.TYPE_BDW;
            }
        }
        return new CpuType(arch, vendor, model);
    }

    private static String attr(String attrs, String name) {
        Matcher m = Pattern.compile("\\b" + name + "=\"([^\"]*)\"").matcher(attrs);
        return m.find() ? m.group(1) : "";
    }

    private static int[] compCaps(String xml) {
        Matcher m = Pattern.compile("<gpu [^>]*\\bsm=\"(\\d+)\"").matcher(xml);
        int min = Integer.MAX_VALUE;
        int max = Integer.MIN_VALUE;
        while (m.find()) {
            int sm = Integer.parseInt(m.group(1));
            min = Math.min(min, sm);
            max = Math.max(max, sm);
        }
        return new int[] {min, max};
    }

    /** MANIFEST rows: file to {@code [VAR=value ...] topology nodes}. */
    private static Map<String, String[]> manifest() {
        Map<String, String[]> out = new LinkedHashMap<>();
        for (String line : read("golden/MANIFEST.txt").lines().toList()) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            String[] f = line.trim().split(" +");
            if (f[1].equals("trees_dump")) {
                continue;
            }
            String[] rest = new String[f.length - 1];
            System.arraycopy(f, 1, rest, 0, rest.length);
            out.put(f[0], rest);
        }
        return out;
    }

    static String read(String name) {
        try (InputStream in = GoldenCase.class.getResourceAsStream(ROOT + name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + ROOT + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return file;
    }
}
