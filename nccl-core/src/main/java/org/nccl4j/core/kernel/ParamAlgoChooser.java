package org.nccl4j.core.kernel;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.enqueue.CollOp;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.transport.Protocol;

/**
 * The choice until the tuning model is wired in: {@code NCCL_ALGO} and {@code NCCL_PROTO} are
 * parsed as NCCL does (comma-separated names, case-insensitive, a leading {@code ^} excludes
 * them). An algorithm or protocol is forced when exactly one is left enabled; otherwise Ring
 * and Simple are used where enabled, else the first enabled in NCCL's order. Tree runs AllReduce
 * only, as in NCCL; other collectives take Ring.
 */
public final class ParamAlgoChooser implements AlgoChooser {
    private final Set<Algorithm> algorithms;
    private final Set<Protocol> protocols;

    /**
     * @param config the communicator's parameters
     * @throws NcclException with {@link Result#INVALID_ARGUMENT} for an unknown name, or a list
     *                       that enables nothing the host engine can run
     */
    public ParamAlgoChooser(Config config) {
        this.algorithms = parse(config.string(Params.ALGO), Params.ALGO.envName(), Algorithm.class, Algorithm::ncclName);
        this.protocols = parse(config.string(Params.PROTO), Params.PROTO.envName(), Protocol.class, Protocol::ncclName);
    }

    @Override
    public Choice choose(CollOp op, int nranks) {
        Algorithm a = op.func() == CollOp.Func.ALL_REDUCE ? pick(algorithms, Algorithm.RING) : Algorithm.RING;
        return new Choice(a, pick(protocols, Protocol.SIMPLE));
    }

    private static <E extends Enum<E>> E pick(Set<E> enabled, E preferred) {
        if (enabled.size() != 1 && enabled.contains(preferred)) {
            return preferred;
        }
        return enabled.iterator().next();
    }

    private static <E extends Enum<E>> Set<E> parse(String value, String param, Class<E> type, Function<E, String> name) {
        EnumSet<E> all = EnumSet.allOf(type);
        if (value == null || value.isBlank()) {
            return all;
        }
        String list = value.strip();
        boolean exclude = list.startsWith("^");
        EnumSet<E> named = EnumSet.noneOf(type);
        for (String token : (exclude ? list.substring(1) : list).split(",")) {
            String t = token.strip().toLowerCase(Locale.ROOT);
            if (t.isEmpty() || t.equals("collnet")) {
                continue; // CollNet is a valid NCCL name that the host engine does not run
            }
            E match = null;
            for (E e : all) {
                if (name.apply(e).toLowerCase(Locale.ROOT).equals(t)) {
                    match = e;
                }
            }
            if (match == null) {
                throw NcclException.of(Result.INVALID_ARGUMENT, param + "=" + value + ": unknown name '" + token.strip() + "'",
                        "use a comma-separated list of " + names(all, name) + ", optionally starting with ^ to exclude");
            }
            named.add(match);
        }
        EnumSet<E> enabled = exclude ? EnumSet.complementOf(named) : named;
        if (enabled.isEmpty()) {
            throw NcclException.of(Result.INVALID_ARGUMENT, param + "=" + value + " enables none of " + names(all, name),
                    "leave at least one enabled");
        }
        return enabled;
    }

    private static <E extends Enum<E>> String names(Set<E> all, Function<E, String> name) {
        return String.join(", ", all.stream().map(name).toList());
    }
}
