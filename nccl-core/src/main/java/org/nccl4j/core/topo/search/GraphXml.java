package org.nccl4j.core.topo.search;

import java.nio.file.Path;
import java.util.List;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.topo.system.NodeType;
import org.nccl4j.core.topo.system.TopoNode;
import org.nccl4j.core.topo.system.TopoSystem;
import org.nccl4j.core.topo.xml.KvDict;
import org.nccl4j.core.topo.xml.TopoXml;
import org.nccl4j.core.topo.xml.XmlNode;
import org.nccl4j.core.topo.xml.XmlWriter;

/**
 * Graph files: {@code NCCL_GRAPH_FILE} import ({@code ncclTopoGetGraphFromXml}) and
 * {@code NCCL_GRAPH_DUMP_FILE} export ({@code ncclTopoGetXmlFromGraphs}, {@code ncclTopoDumpGraphs}).
 * GPUs are written by CUDA device index and read back as the rank of that device.
 */
public final class GraphXml {
    private GraphXml() {
    }

    /**
     * Fills {@code graph} from the {@code <graph>} of a graph document with the same id. As in
     * NCCL, a {@code crossnic="1"} graph is ignored when the request forbids cross-NIC.
     *
     * @param xml    a graph document
     * @param system the system (for dev → rank)
     * @param graph  the request; receives the loaded channels
     * @return the number of channels in the matching {@code <graph>} (0 if none)
     */
    public static int load(TopoXml xml, TopoSystem system, TopoGraph graph) {
        int nChannels = 0;
        XmlNode graphs = xml.root();
        if (graphs == null) {
            return 0;
        }
        for (XmlNode g : graphs.subs()) {
            if (g.attrInt("id") != graph.id) {
                continue;
            }
            int crossNic = g.attrInt("crossnic");
            if (graph.crossNic == 0 && crossNic == 1) {
                continue;
            }
            graph.crossNic = crossNic;
            graph.pattern = g.attrInt("pattern");
            graph.nChannels = g.attrInt("nchannels");
            graph.speedIntra = g.attrFloat("speedintra");
            graph.speedInter = g.attrFloat("speedinter");
            graph.typeIntra = KvDict.PATH_TYPE.toInt(g.attr("typeintra"));
            graph.typeInter = KvDict.PATH_TYPE.toInt(g.attr("typeinter"));
            graph.sameChannels = g.attrInt("samechannels");
            List<XmlNode> channels = g.subs();
            for (int c = 0; c < channels.size(); c++) {
                loadChannel(channels.get(c), c, system, graph);
            }
            nChannels = channels.size();
        }
        return nChannels;
    }

    private static void loadChannel(XmlNode channel, int c, TopoSystem system, TopoGraph graph) {
        int ngpus = system.count(NodeType.GPU);
        int n = 0;
        int g = 0;
        for (XmlNode sub : channel.subs()) {
            int dev = sub.attrInt("dev");
            if (sub.name().equals("net")) {
                graph.inter[2 * c + n++] = dev;
            } else if (sub.name().equals("gpu")) {
                int rank = -1;
                for (TopoNode gpu : system.nodes(NodeType.GPU)) {
                    if (gpu.dev == dev) {
                        rank = gpu.rank;
                    }
                }
                if (rank == -1) {
                    throw NcclException.of(Result.SYSTEM_ERROR, "XML Import Channel : dev " + dev + " not found.", null);
                }
                graph.intra[ngpus * c + g++] = rank;
            }
        }
    }

    /**
     * {@code ncclTopoGetXmlFromGraphs}.
     *
     * @param graphs the graphs
     * @param system the system (for rank → dev)
     * @return the graph document
     */
    public static TopoXml toXml(List<TopoGraph> graphs, TopoSystem system) {
        TopoXml xml = new TopoXml();
        XmlNode root = xml.addNode(null, "graphs");
        root.setAttrInt("version", TopoXml.GRAPH_XML_VERSION);
        int ngpus = system.count(NodeType.GPU);
        boolean hasNet = system.count(NodeType.NET) > 0;
        for (TopoGraph graph : graphs) {
            XmlNode g = xml.addNode(root, "graph");
            g.setAttrInt("id", graph.id);
            g.setAttrInt("pattern", graph.pattern);
            g.setAttrInt("crossnic", graph.crossNic);
            g.setAttrInt("nchannels", graph.nChannels);
            g.setAttrFloat("speedintra", graph.speedIntra);
            g.setAttrFloat("speedinter", graph.speedInter);
            g.setAttr("typeintra", KvDict.PATH_TYPE.toStr(graph.typeIntra));
            g.setAttr("typeinter", KvDict.PATH_TYPE.toStr(graph.typeInter));
            g.setAttrInt("samechannels", graph.sameChannels);
            for (int c = 0; c < graph.nChannels; c++) {
                XmlNode ch = xml.addNode(g, "channel");
                if (hasNet) {
                    xml.addNode(ch, "net").setAttrInt("dev", graph.inter[2 * c]);
                }
                for (int i = 0; i < ngpus; i++) {
                    int dev = -1;
                    for (TopoNode gpu : system.nodes(NodeType.GPU)) {
                        if (gpu.rank == graph.intra[ngpus * c + i]) {
                            dev = gpu.dev;
                        }
                    }
                    if (dev == -1) {
                        throw NcclException.of(Result.INTERNAL_ERROR, "XML Export Channel : rank " + graph.intra[ngpus * c + i]
                                + " not found.", null);
                    }
                    xml.addNode(ch, "gpu").setAttrInt("dev", dev);
                }
                if (hasNet) {
                    xml.addNode(ch, "net").setAttrInt("dev", graph.inter[2 * c + 1]);
                }
            }
        }
        return xml;
    }

    /**
     * {@code ncclTopoDumpGraphs}: writes the graphs to {@code NCCL_GRAPH_DUMP_FILE} when set (the
     * caller checks {@code NCCL_GRAPH_DUMP_FILE_RANK}).
     *
     * @param config the configuration
     * @param system the system
     * @param graphs the graphs
     */
    public static void dump(Config config, TopoSystem system, List<TopoGraph> graphs) {
        String file = config.string(Params.GRAPH_DUMP_FILE);
        if (file != null && !file.isEmpty()) {
            Log.info(Subsys.ENV, "NCCL_GRAPH_DUMP_FILE set by environment to %s", file);
            XmlWriter.write(Path.of(file), toXml(graphs, system));
        }
    }
}
