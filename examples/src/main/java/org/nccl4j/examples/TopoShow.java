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
import org.nccl4j.CommConfig;
import org.nccl4j.NcclException;
import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.DeviceBackends;
import org.nccl4j.core.device.HostBackend;
import org.nccl4j.core.device.LocalDevice;
import org.nccl4j.core.host.HostIdentity;
import org.nccl4j.core.net.InitNet;
import org.nccl4j.core.net.GdrProbe;
import org.nccl4j.core.net.NetSelection;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.topo.detection.DetectedRank;
import org.nccl4j.core.topo.detection.TopoDetector;
import org.nccl4j.core.topo.sim.TopoSimulator;
import org.nccl4j.core.topo.tuning.TuningProfile;
import org.nccl4j.core.topo.xml.TopoXml;
import org.nccl4j.core.topo.xml.XmlWriter;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetProperties;

/**
 * {@code nccl4j topo show}: detects this machine as a communicator of N local ranks would, on
 * the device backend init would choose ({@code NCCL4J_DEVICE}, else the first usable, as
 * {@code doctor} lists them): with the cuda backend, the machine's GPUs (one rank per visible
 * GPU by default; more ranks than GPUs share them, {@code NCCL4J_SHARED_DEVICE}); else host
 * ranks. It prints the topology XML (the selected network's NICs and sysfs included), then
 * replays init's graph code on it (one node) with the tuning tables and channel rules init uses
 * for that backend, in the line formats of {@code topo sim}.
 */
final class TopoShow {
    private TopoShow() {
    }

    /**
     * @param nranks local ranks, or {@code null}: one per GPU (cuda), 2 (host)
     * @return the exit status
     */
    static int print(Integer nranks) {
        if (nranks != null && nranks < 1) {
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
            DeviceBackend backend = DeviceBackends.select(config).backend();
            boolean host = HostBackend.NAME.equals(backend.name());
            int gpus = host ? 0 : backend.deviceCount();
            int n = nranks != null ? nranks : host ? 2 : gpus;
            boolean shared = !host && n > gpus;
            Config rankConfig = shared ? config.with(CommConfig.builder().param("NCCL4J_SHARED_DEVICE", "1").build())
                    : config;
            int numa = HostIdentity.numaNode();
            List<DetectedRank> ranks = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                LocalDevice dev = backend.open(rankConfig);
                boolean gdr = GdrProbe.supported(net, backend, dev, config.integer(Params.CONNECT_TIMEOUT_MS),
                        new AbortFlag());
                ranks.add(new DetectedRank(r, 1, dev.busId(), backend.name(), dev.index() >= 0 ? dev.index() : r, numa,
                        gdr));
            }
            TopoXml xml = TopoDetector.forHost().detect(config, 0, ranks, nets, backend);
            String text = XmlWriter.toText(xml);
            out.println(header(backend.name(), n, gpus, shared, net.net().name()));
            out.print(text);
            tmp = Files.createTempFile("nccl4j-topo", ".xml");
            Files.writeString(tmp, text);
            out.println("# what init computes on it");
            Map<String, String> env = new HashMap<>(System.getenv());
            TuningProfile profile = TuningProfile.NCCL_GPU;
            if (host) {
                // As init does for host ranks: the host's tuning tables, and no more channels than cores per rank.
                env.putIfAbsent("NCCL_MAX_NCHANNELS", Integer.toString(HostBackend.maxChannels(n)));
                profile = TuningProfile.HOST;
            }
            TopoSimulator.run(tmp, 1, env, out, TopoSimulator.SearchMode.EVERY_RANK, profile);
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

    /** The first line: which backend, how many ranks on what, which net. */
    static String header(String backend, int nranks, int gpus, boolean shared, String net) {
        if (HostBackend.NAME.equals(backend)) {
            return "# topology of this machine for " + nranks + " local host ranks (backend host, net " + net + ")";
        }
        return "# topology of this machine for " + nranks + " local " + backend + " ranks on " + gpus + " GPU"
                + (gpus == 1 ? "" : "s") + (shared ? ", sharing them (NCCL4J_SHARED_DEVICE=1)" : "") + " (backend "
                + backend + ", net " + net + ")";
    }
}
