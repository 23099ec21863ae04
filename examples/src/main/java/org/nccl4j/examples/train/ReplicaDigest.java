package org.nccl4j.examples.train;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What one rank's replica ends with: a 64-bit FNV-1a digest of the raw bits of its parameters
 * (bits, not values: a -0.0 against a 0.0 or a NaN differ), printed by each rank as one line,
 * {@code rank 2 digest 9abfbaf13326d244 (4547 parameters)}. Whoever started the ranks compares
 * those lines ({@link #compare}); no collective takes part in the check, so an AllReduce that
 * went wrong cannot vouch for itself.
 *
 * @param rank   the rank
 * @param digest the digest of its parameters
 * @param params how many parameters
 */
public record ReplicaDigest(int rank, long digest, int params) {
    private static final Pattern LINE = Pattern.compile("rank (\\d+) digest ([0-9a-f]{16}) \\((\\d+) parameters\\)");

    /**
     * @param rank   the rank
     * @param params its parameters
     * @return their digest
     */
    public static ReplicaDigest of(int rank, float[] params) {
        long h = 0xcbf29ce484222325L;
        for (float p : params) {
            int bits = Float.floatToRawIntBits(p);
            for (int b = 0; b < 4; b++) {
                h ^= (bits >>> (8 * b)) & 0xff;
                h *= 0x100000001b3L;
            }
        }
        return new ReplicaDigest(rank, h, params.length);
    }

    /** @return the line the rank prints */
    public String line() {
        return String.format(Locale.ROOT, "rank %d digest %016x (%d parameters)", rank, digest, params);
    }

    /**
     * @param outputs every rank's output lines, by rank
     * @return each rank's digest, by rank, {@code null} where rank r printed no line for rank r
     */
    public static List<ReplicaDigest> fromOutputs(List<List<String>> outputs) {
        List<ReplicaDigest> digests = new ArrayList<>();
        for (int r = 0; r < outputs.size(); r++) {
            ReplicaDigest found = null;
            for (String l : outputs.get(r)) {
                Matcher m = LINE.matcher(l);
                if (m.matches() && Integer.parseInt(m.group(1)) == r) {
                    found = new ReplicaDigest(r, Long.parseUnsignedLong(m.group(2), 16), Integer.parseInt(m.group(3)));
                }
            }
            digests.add(found);
        }
        return digests;
    }

    /**
     * Prints whether the replicas are identical: {@code replicas identical: yes (...)}, or
     * {@code replicas differ: ...} naming each digest and the ranks that hold it.
     *
     * @param byRank every rank's digest, by rank ({@code null}: that rank printed none)
     * @param out    where to print the verdict
     * @return 0 if every rank printed the same digest, 1 if not
     */
    public static int compare(List<ReplicaDigest> byRank, PrintStream out) {
        for (int r = 0; r < byRank.size(); r++) {
            if (byRank.get(r) == null) {
                out.println("replicas differ: rank " + r + " printed no digest");
                return 1;
            }
        }
        Map<String, List<Integer>> ranksByDigest = new LinkedHashMap<>();
        for (ReplicaDigest d : byRank) {
            String key = String.format(Locale.ROOT, "%016x (%d parameters)", d.digest(), d.params());
            ranksByDigest.computeIfAbsent(key, k -> new ArrayList<>()).add(d.rank());
        }
        if (ranksByDigest.size() == 1) {
            ReplicaDigest d = byRank.get(0);
            out.println(String.format(Locale.ROOT, "replicas identical: yes (%d ranks, %d parameters, digest %016x)",
                    byRank.size(), d.params(), d.digest()));
            return 0;
        }
        out.println("replicas differ: " + ranksByDigest.entrySet().stream()
                .map(e -> "digest " + e.getKey() + " on rank" + (e.getValue().size() > 1 ? "s " : " ")
                        + e.getValue().stream().map(String::valueOf).collect(Collectors.joining(", ")))
                .collect(Collectors.joining("; ")));
        return 1;
    }
}
