package org.nccl4j.core.diag;

import java.util.ArrayList;
import java.util.List;
import org.nccl4j.NcclException;
import org.nccl4j.core.version.Nccl4jVersion;
import org.nccl4j.core.device.DeviceBackendProvider;
import org.nccl4j.core.device.DeviceBackends;
import org.nccl4j.core.device.HostBackend;
import org.nccl4j.core.init.BootstrapInterface;
import org.nccl4j.core.net.InitNet;
import org.nccl4j.core.net.NetCandidate;
import org.nccl4j.core.net.NetSelection;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Param;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.param.Setting;
import org.nccl4j.core.param.Source;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetProvider;
import org.nccl4j.net.spi.NetProperties;
import org.nccl4j.net.spi.iface.CommIdAddress;
import org.nccl4j.net.spi.iface.InterfaceSelection;
import org.nccl4j.net.spi.iface.NetInterface;

/**
 * What nccl4j sees and would choose, with reasons: the report of {@code nccl4j doctor}.
 * Runs the same code as init (interface search, initNet, backend choice) without creating a
 * communicator.
 */
public final class Doctor {
    private Doctor() {
    }

    /**
     * @param config parameters to diagnose
     * @return the report, one line per element
     */
    public static List<String> report(Config config) {
        List<String> out = new ArrayList<>();
        out.add("nccl4j " + Nccl4jVersion.VERSION + " (ports NCCL " + Nccl4jVersion.NCCL_VERSION + ")");
        out.add("JDK: " + Runtime.version() + " " + System.getProperty("java.vendor") + " at " + System.getProperty("java.home"));
        out.add("");
        interfaces(config, out);
        out.add("");
        nets(config, out);
        out.add("");
        out.addAll(devices(config, DeviceBackends.providers()));
        out.add("");
        params(config, out);
        return out;
    }

    private static void interfaces(Config config, List<String> out) {
        out.add("Network interfaces:");
        try {
            String commId = config.string(Params.COMM_ID);
            InterfaceSelection s = BootstrapInterface.search(config, commId == null ? null : CommIdAddress.parse(commId));
            for (NetInterface ni : s.seen()) {
                out.add("  " + ni.describe());
            }
            out.add("Bootstrap interface: " + (s.isEmpty() ? "none" : s.interfaces().get(0).describe()));
            out.add("  why: " + s.reason());
        } catch (NcclException | IllegalArgumentException e) {
            out.add("  error: " + e.getMessage());
        }
    }

    private static void nets(Config config, List<String> out) {
        out.add("Network plugins (initNet, in the order tried" + nccl(config, Params.NET) + "):");
        List<NetProvider> providers = InitNet.providers();
        try {
            NetSelection s;
            try {
                s = InitNet.choose(config, config.string(Params.NET), providers);
            } catch (NcclException e) {
                details(providers, out);
                throw e;
            }
            candidates(s.candidates(), out);
            for (int d = 0; d < s.devices(); d++) {
                try {
                    NetProperties p = s.net().getProperties(d);
                    out.add(String.format("    device %d: %s speed %d Mbps pci %s", d, p.name(), p.speed(), p.pciPath()));
                } catch (NetException e) {
                    out.add("    device " + d + ": " + e.getMessage());
                }
            }
            details(providers, out);
            s.net().shutdown();
        } catch (NcclException e) {
            out.add("  error: " + e.detail());
            if (e.hint() != null) {
                out.add("  hint: " + e.hint());
            }
        }
    }

    /** What providers say about themselves (nccl-net-ext: the native plugin search). */
    private static void details(List<NetProvider> providers, List<String> out) {
        for (NetProvider p : providers) {
            String d = InitNet.detail(p);
            if (d != null) {
                out.add("  " + p.name() + " (priority " + p.priority() + "):");
                d.lines().forEach(l -> out.add("      " + l));
            }
        }
    }

    private static void candidates(List<NetCandidate> list, List<String> out) {
        if (list.isEmpty()) {
            out.add("  none registered");
        }
        for (NetCandidate c : list) {
            out.add(String.format("  %-10s priority %4d  %s", c.name(), c.priority(), c.status()));
        }
    }

    /**
     * The device backends section: the choice init makes, each backend created and counted
     * ({@code chosen, N devices}, {@code unusable: why}) or {@code not tried}, never assumed usable.
     *
     * @param config    parameters ({@code NCCL4J_DEVICE})
     * @param providers the candidates, lowest priority first
     * @return the section's lines
     */
    static List<String> devices(Config config, List<DeviceBackendProvider> providers) {
        List<String> out = new ArrayList<>();
        out.add("Device backends (in the order tried" + nccl(config, Params.DEVICE) + "):");
        try {
            for (DeviceBackends.Candidate c : DeviceBackends.select(config, providers).candidates()) {
                out.add(String.format("  %-10s priority %4d  %s", c.name(), c.priority(), c.status()));
            }
        } catch (NcclException e) {
            out.add("  error: " + e.detail());
            if (e.hint() != null) {
                out.add("  hint: " + e.hint());
            }
        }
        return out;
    }

    private static String nccl(Config config, Param p) {
        String v = config.string(p);
        return v == null ? "" : ", " + p.envName() + "=" + v;
    }

    private static void params(Config config, List<String> out) {
        out.add("Parameters (effective value and source):");
        List<Setting> unapplied = HostBackend.unappliedKnobs(config);
        for (Setting s : config.all()) {
            String where = s.source() == Source.DEFAULT ? "default" : s.source().name().toLowerCase().replace('_', ' ')
                    + " " + s.origin();
            String value = s.value() == null ? "(unset)" : Params.isSecret(s.param()) ? "(set, hidden)" : s.value();
            out.add(String.format("  %-28s = %-16s (%s)%s", s.param().envName(), value,
                    where, unapplied.contains(s) ? " " + Param.NOT_ON_HOST + s.param().hostNote() : ""));
        }
    }
}
