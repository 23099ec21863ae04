package org.nccl4j.core.net;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetProvider;

/**
 * NCCL 2.10's {@code initNet}: candidates are the {@link NetProvider}s found by
 * {@link ServiceLoader} in priority order (native plugin, IB, Socket); {@code NCCL_NET} keeps
 * only the one of that name; the first whose {@code init} succeeds and whose {@code devices()} is
 * at least 1 wins.
 *
 * <p>Done once per process for each {@code NCCL_NET} value and each set of the settings the chosen
 * net read while it initialised ({@code NCCL_SOCKET_IFNAME}, {@code NCCL_IB_HCA}, a plugin's own
 * parameters…): a communicator whose {@code CommConfig} gives one of them another value gets a net
 * of its own, initialised with its settings, instead of silently sharing the first one. A native
 * plugin reading its environment itself sees the process's environment only.
 */
public final class InitNet {
    /** NCCL_NET value → the nets initialised for it, each with the settings it read. */
    private static final Map<String, List<Initialised>> SELECTED = new ConcurrentHashMap<>();

    /** A net initialised for the process, and how many communicators (or inits) use it now. */
    private static final class Initialised {
        final NetSelection selection;
        final Map<String, String> settings;
        int users;

        Initialised(NetSelection selection, Map<String, String> settings) {
            this.selection = selection;
            this.settings = settings;
        }

        boolean matches(Config config) {
            return settings.entrySet().stream().allMatch(
                    e -> java.util.Objects.equals(e.getValue(), CoreNetContext.value(config, e.getKey())));
        }
    }

    private InitNet() {
    }

    /** @return every registered provider, lowest priority first */
    public static List<NetProvider> providers() {
        List<NetProvider> list = new ArrayList<>();
        ServiceLoader.load(NetProvider.class, InitNet.class.getClassLoader()).forEach(list::add);
        list.sort(Comparator.comparingInt(NetProvider::priority));
        return list;
    }

    /**
     * @param config parameters ({@code NCCL_NET} and whatever the plugins read)
     * @return the process's network for that {@code NCCL_NET} value and these net settings, one
     *     more user of it until {@link #release}
     * @throws NcclException with {@link Result#INVALID_USAGE} if no candidate is usable
     */
    public static NetSelection select(Config config) {
        String wanted = config.string(Params.NET);
        synchronized (InitNet.class) {
            List<Initialised> nets = SELECTED.computeIfAbsent(key(wanted), k -> new ArrayList<>());
            for (Initialised i : nets) {
                if (i.matches(config)) {
                    i.users++;
                    return i.selection;
                }
            }
            CoreNetContext context = new CoreNetContext(config);
            NetSelection s = choose(context, wanted, providers());
            if (!nets.isEmpty()) {
                Log.info(Subsys.INIT | Subsys.NET, "NET : settings %s differ from those of the net already in use %s: "
                        + "initialised another %s", context.reads(), nets.get(0).settings, s.net().name());
            }
            Initialised i = new Initialised(s, context.reads());
            i.users = 1;
            nets.add(i);
            return s;
        }
    }

    /**
     * One user of a {@link #select}ed network is done with it (a communicator destroyed, or an
     * init that failed). The last one shuts a {@link Net#restartable} network down, its threads
     * end, and the next {@link #select} initialises a new one; any other stays for the process,
     * as NCCL's.
     *
     * @param s what {@link #select} returned
     */
    public static void release(NetSelection s) {
        synchronized (InitNet.class) {
            for (List<Initialised> nets : SELECTED.values()) {
                for (Initialised i : nets) {
                    if (i.selection == s) {
                        if (--i.users == 0 && s.net().restartable()) {
                            nets.remove(i);
                            Log.info(Subsys.INIT | Subsys.NET, "NET : %s no longer used: shut down", s.net().name());
                            s.net().shutdown();
                        }
                        return;
                    }
                }
            }
        }
    }

    private static String key(String wanted) {
        return wanted == null ? "" : wanted;
    }

    /**
     * A provider's own account of itself ({@link NetProvider#describe()}), for candidate lists and
     * {@code nccl4j doctor}: nccl-net-ext reports its plugin search that way (the libraries tried
     * with dlerror's text, the symbols found, the plugin's name and init outcome). The first line
     * is a summary.
     *
     * @param p a provider
     * @return its description, or {@code null}
     */
    public static String detail(NetProvider p) {
        List<String> lines = p.describe();
        return lines.isEmpty() ? null : String.join("\n", lines);
    }

    /**
     * Runs the choice without caching it (for tests and {@code nccl4j doctor}).
     *
     * @param config    parameters
     * @param wanted    {@code NCCL_NET}, or {@code null}
     * @param providers candidates in the order to try
     * @return the selection
     * @throws NcclException with {@link Result#INVALID_USAGE} if no candidate is usable
     */
    public static NetSelection choose(Config config, String wanted, List<NetProvider> providers) {
        return choose(new CoreNetContext(config), wanted, providers);
    }

    private static NetSelection choose(CoreNetContext context, String wanted, List<NetProvider> providers) {
        List<NetCandidate> candidates = new ArrayList<>();
        Net chosen = null;
        int devices = 0;
        for (NetProvider p : providers) {
            if (wanted != null && !wanted.equals(p.name())) {
                String detail = detail(p);
                candidates.add(new NetCandidate(p.name(), p.priority(), "skipped: NCCL_NET=" + wanted
                        + (detail == null ? "" : "; " + detail.lines().findFirst().orElse(""))));
                continue;
            }
            if (chosen != null) {
                candidates.add(new NetCandidate(p.name(), p.priority(), "not tried: " + chosen.name() + " came first"));
                continue;
            }
            String status;
            try {
                Net net = p.create();
                net.init(context);
                int n = net.devices();
                if (n >= 1) {
                    chosen = net;
                    devices = n;
                    status = "chosen, " + n + " device" + (n == 1 ? "" : "s");
                } else {
                    net.shutdown();
                    status = "refused: no device";
                }
            } catch (NetException e) {
                status = "refused: " + e.getMessage();
            } catch (RuntimeException | LinkageError e) {
                status = "refused: " + e;
            }
            candidates.add(new NetCandidate(p.name(), p.priority(), status));
            if (chosen == null) {
                Log.info(Subsys.INIT | Subsys.NET, "NET : %s %s", p.name(), status);
            }
        }
        if (chosen == null) {
            String list = candidates.isEmpty() ? "none registered" : candidates.toString();
            Log.warn("Error: network %s not found.", wanted == null ? "(any)" : wanted);
            throw NcclException.of(Result.INVALID_USAGE,
                    "network " + (wanted == null ? "(any)" : wanted) + " not found; candidates: " + list,
                    wanted == null ? "add org.nccl4j:nccl-net-socket to the class path"
                            : "unset NCCL_NET or set it to the name of a usable candidate (names are case-sensitive)");
        }
        Log.info(Subsys.INIT | Subsys.NET, "Using network %s", chosen.name());
        return new NetSelection(chosen, devices, List.copyOf(candidates));
    }
}
