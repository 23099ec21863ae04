package org.nccl4j.examples;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.nccl4j.NcclException;
import org.nccl4j.core.device.HostBackend;
import org.nccl4j.core.device.LocalDevice;
import org.nccl4j.core.host.HostIdentity;
import org.nccl4j.core.net.InitNet;
import org.nccl4j.core.net.NetSelection;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.topo.detection.DetectedRank;
import org.nccl4j.core.topo.detection.TopoDetector;
import org.nccl4j.core.topo.sim.TopoSimulator;
import org.nccl4j.core.topo.tuning.TuningProfile;
import org.nccl4j.core.topo.xml.TopoXml;
import org.nccl4j.core.topo.xml.XmlWriter;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetProperties;

/**
 * {@code nccl4j topo show}: detects this machine as a communicator of N local host ranks would
 * (the host backend's devices, the selected network's NICs, sysfs), prints the topology XML, then
 * replays init's graph code on it (one node) and prints what it computes, in the line formats of
 * {@code topo sim}.
 */
final class TopoShow {
    private TopoShow() {
    }

    static int print(int nranks) {
        if (nranks < 1) {
            System.err.println("nccl4j topo show: --nranks must be at least 1, not " + nranks);
            return 2;
        }
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false,
                StandardCharsets.UTF_8);
        Path tmp = null;
        try {
            Config config = Config.global();
            NetSelection net = InitNet.select(config);
            List<NetProperties> nets = new ArrayList<>();
            for (int d = 0; d < net.devices(); d++) {
                nets.add(net.net().getProperties(d));
            }
            HostBackend backend = new HostBackend();
            int numa = HostIdentity.numaNode();
            List<DetectedRank> ranks = new ArrayList<>();
            for (int r = 0; r < nranks; r++) {
                LocalDevice dev = backend.open(config);
                ranks.add(new DetectedRank(r, 1, dev.busId(), HostBackend.NAME, r, numa, false));
            }
            TopoXml xml = TopoDetector.forHost().detect(config, 0, ranks, nets);
            String text = XmlWriter.toText(xml);
            out.println("# topology of this machine for " + nranks + " local host ranks (net " + net.net().name() + ")");
            out.print(text);
            tmp = Files.createTempFile("nccl4j-topo", ".xml");
            Files.writeString(tmp, text);
            out.println("# what init computes on it");
            // As init does for host ranks: the host's tuning tables, and no more channels than cores per rank.
            Map<String, String> env = new HashMap<>(System.getenv());
            env.putIfAbsent("NCCL_MAX_NCHANNELS", Integer.toString(HostBackend.maxChannels(nranks)));
            TopoSimulator.run(tmp, 1, env, out, TopoSimulator.SearchMode.EVERY_RANK, TuningProfile.HOST);
            out.flush();
            return 0;
        } catch (NcclException | NetException | IOException e) {
            out.flush();
            System.err.println("nccl4j topo show: " + e.getMessage());
            return 1;
        } finally {
            if (tmp != null) {
                tmp.toFile().delete();
            }
        }
    }
}
