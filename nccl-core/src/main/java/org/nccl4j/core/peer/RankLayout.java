package org.nccl4j.core.peer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * Where the ranks are, derived from AllGather1 as {@code initTransportsRank} does: nodes (by host
 * hash, in order of first appearance), the ranks of this node, the ranks of this process.
 * Refuses duplicate devices and mixed versions.
 *
 * @param nodeCount    number of distinct hosts
 * @param node         this rank's node index
 * @param localRanks   the global ranks on this rank's node, ascending
 * @param localRank    this rank's index among them
 * @param processRanks the global ranks in this rank's process, ascending
 * @param nodeOfRank   node index of every rank
 */
public record RankLayout(int nodeCount, int node, int[] localRanks, int localRank, int[] processRanks,
                         int[] nodeOfRank) {
    /**
     * @param peers every rank's info, index = rank
     * @param rank  this rank
     * @return the layout
     * @throws NcclException with {@link Result#INVALID_USAGE} on a duplicate device or a version
     *     mismatch
     */
    public static RankLayout of(List<PeerInfo> peers, int rank) {
        checkVersions(peers);
        checkDuplicates(peers);
        Map<Long, Integer> nodes = new LinkedHashMap<>();
        int[] nodeOfRank = new int[peers.size()];
        for (PeerInfo p : peers) {
            nodeOfRank[p.rank()] = nodes.computeIfAbsent(p.hostHash(), h -> nodes.size());
        }
        PeerInfo me = peers.get(rank);
        int node = nodeOfRank[rank];
        int[] local = peers.stream().filter(p -> p.hostHash() == me.hostHash()).mapToInt(PeerInfo::rank).toArray();
        int[] process = peers.stream().filter(p -> p.hostHash() == me.hostHash() && p.pidHash() == me.pidHash())
                .mapToInt(PeerInfo::rank).toArray();
        int localRank = Arrays.binarySearch(local, rank);
        return new RankLayout(nodes.size(), node, local, localRank, process, nodeOfRank);
    }

    private static void checkVersions(List<PeerInfo> peers) {
        Map<String, List<Integer>> byVersion = new TreeMap<>();
        for (PeerInfo p : peers) {
            byVersion.computeIfAbsent(p.version(), v -> new ArrayList<>()).add(p.rank());
        }
        if (byVersion.size() > 1) {
            String list = byVersion.entrySet().stream().map(e -> e.getKey() + " on ranks " + e.getValue())
                    .collect(Collectors.joining("; "));
            throw NcclException.of(Result.INVALID_USAGE, "ranks run different nccl4j versions: " + list,
                    "deploy one nccl4j version to every rank");
        }
    }

    private static void checkDuplicates(List<PeerInfo> peers) {
        for (int i = 0; i < peers.size(); i++) {
            for (int j = i + 1; j < peers.size(); j++) {
                PeerInfo a = peers.get(i);
                PeerInfo b = peers.get(j);
                if (a.hostHash() == b.hostHash() && a.busId() == b.busId()) {
                    throw NcclException.of(Result.INVALID_USAGE, String.format(
                            "Duplicate device detected: rank %d and rank %d both on %s device %d (busId %x) of host %s",
                            a.rank(), b.rank(), a.backend(), a.device(), a.busId(), a.hostname()),
                            "give each rank of a host its own device (NCCL4J_HOST_DEVICE / the GPU index)");
                }
            }
        }
    }
}
