package org.nccl4j.core.topo.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.nccl4j.core.topo.connect.ChannelTopology;
import org.nccl4j.core.topo.connect.Tree;

/**
 * Structural properties of the rings and trees the simulator builds from RCCL's real topology
 * models ({@code topo/rccl/*.xml}, RCCL's {@code version="2"} dialect), for 1 to 4 nodes: every
 * channel's ring is one cycle through all ranks, every channel's tree is one tree spanning all
 * ranks, chained within a node and with at most two children on other nodes.
 *
 * <p>CI runs every model with one sampled node count (cycled over the models, so every count
 * is covered); {@code -Dnccl4j.matrix=full} (Maven profile {@code matrix}) runs all four for
 * every model.
 */
class RcclTopoPropertyTest {
    /** The node counts of the full product. */
    private static final int[] NODE_COUNTS = {1, 2, 3, 4};

    /** One simulated job. */
    record Case(String model, int nNodes) {
        @Override
        public String toString() {
            return model + " n" + nNodes;
        }
    }

    static boolean full() {
        return "full".equals(System.getProperty("nccl4j.matrix"));
    }

    static Stream<Case> cases() {
        List<Path> models;
        try (Stream<Path> files = Files.list(TopoSimGoldenTest.resourcePath("rccl"))) {
            models = files.filter(p -> p.getFileName().toString().endsWith(".xml")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Case> cases = new ArrayList<>();
        for (int m = 0; m < models.size(); m++) {
            String name = models.get(m).getFileName().toString();
            if (full()) {
                for (int n : NODE_COUNTS) {
                    cases.add(new Case(name, n));
                }
            } else {
                cases.add(new Case(name, NODE_COUNTS[m % NODE_COUNTS.length]));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void ringsAndTreesAreWellFormed(Case c) {
        List<TopoSimulator.RankState> states = TopoSimulator.run(TopoSimGoldenTest.resourcePath("rccl/" + c.model()),
                c.nNodes(), Map.of(), Writer.nullWriter(), TopoSimulator.SearchMode.ONCE_PER_NODE);
        int nRanks = states.size();
        ChannelTopology[] comms = new ChannelTopology[nRanks];
        for (TopoSimulator.RankState s : states) {
            comms[s.rank()] = s.channels();
        }
        int nChannels = comms[0].nChannels;
        assertTrue(nChannels > 0, c + ": no channels");
        for (ChannelTopology comm : comms) {
            assertEquals(nChannels, comm.nChannels, c + ": rank " + comm.rank + " nChannels");
            assertEquals(c.nNodes(), comm.nNodes, c + ": rank " + comm.rank + " nNodes");
        }
        for (int ch = 0; ch < nChannels; ch++) {
            checkRing(c + " ch=" + ch, comms, ch, states.get(0).rings());
            checkTree(c + " ch=" + ch, comms, ch);
        }
    }

    /** One cycle through every rank, prev/next mutually consistent, in the order of rank 0's {@code RING} line. */
    private static void checkRing(String where, ChannelTopology[] comms, int ch, int[] rings) {
        int nRanks = comms.length;
        for (ChannelTopology comm : comms) {
            int next = comm.channel(ch).ring.next;
            int prev = comm.channel(ch).ring.prev;
            assertTrue(next >= 0 && next < nRanks && prev >= 0 && prev < nRanks,
                    where + ": rank " + comm.rank + " ring " + prev + "->" + comm.rank + "->" + next);
            assertEquals(comm.rank, comms[next].channel(ch).ring.prev, where + ": prev of next of rank " + comm.rank);
        }
        boolean[] seen = new boolean[nRanks];
        int r = 0;
        for (int step = 0; step < nRanks; step++) {
            assertTrue(!seen[r], where + ": ring revisits rank " + r + " after " + step + " steps");
            seen[r] = true;
            assertEquals(rings[ch * nRanks + (step + indexOf(rings, ch, nRanks, 0)) % nRanks], r,
                    where + ": RING line disagrees with next at step " + step);
            r = comms[r].channel(ch).ring.next;
        }
        assertEquals(0, r, where + ": ring from rank 0 does not return to it after " + nRanks + " steps");
    }

    private static int indexOf(int[] rings, int ch, int nRanks, int rank) {
        for (int i = 0; i < nRanks; i++) {
            if (rings[ch * nRanks + i] == rank) {
                return i;
            }
        }
        fail("rank " + rank + " missing from ring " + ch);
        return -1;
    }

    /**
     * One root, up/down consistent, every rank reached from the root exactly once (so no cycle),
     * at most {@link Tree#MAX_ARITY} children, of which at most one on the rank's node (the
     * intra-node chain) and at most two on other nodes (the double binary tree).
     */
    private static void checkTree(String where, ChannelTopology[] comms, int ch) {
        int nRanks = comms.length;
        int root = -1;
        for (ChannelTopology comm : comms) {
            Tree t = comm.channel(ch).tree;
            String at = where + ": rank " + comm.rank + " tree up:" + t.up + " down:" + t.down[0] + "/" + t.down[1] + "/"
                    + t.down[2];
            if (t.up == -1) {
                assertEquals(-1, root, at + ": second root (first " + root + ")");
                root = comm.rank;
            } else {
                assertTrue(t.up >= 0 && t.up < nRanks && t.up != comm.rank, at + ": bad parent");
                assertTrue(contains(comms[t.up].channel(ch).tree.down, comm.rank), at + ": parent does not list it as child");
            }
            int intra = 0;
            int inter = 0;
            for (int d : t.down) {
                if (d == -1) {
                    continue;
                }
                assertTrue(d >= 0 && d < nRanks && d != comm.rank, at + ": bad child " + d);
                assertEquals(comm.rank, comms[d].channel(ch).tree.up, at + ": child " + d + " has another parent");
                if (comms[d].node == comm.node) {
                    intra++;
                } else {
                    inter++;
                }
            }
            assertTrue(intra <= 1, at + ": " + intra + " children on its own node (a chain has one)");
            assertTrue(inter <= 2, at + ": " + inter + " children on other nodes (binary tree: at most 2)");
        }
        assertTrue(root >= 0, where + ": no root");
        // Walk down from the root; with consistent up/down links, reaching every rank once means a tree.
        boolean[] seen = new boolean[nRanks];
        int reached = 0;
        int[] stack = new int[nRanks + 1];
        int top = 0;
        stack[top++] = root;
        while (top > 0) {
            int r = stack[--top];
            assertTrue(!seen[r], where + ": rank " + r + " reached twice (cycle)");
            seen[r] = true;
            reached++;
            for (int d : comms[r].channel(ch).tree.down) {
                if (d != -1) {
                    assertTrue(top < stack.length, where + ": more tree edges than ranks (cycle)");
                    stack[top++] = d;
                }
            }
        }
        assertEquals(nRanks, reached, where + ": ranks reached from root " + root);
    }

    private static boolean contains(int[] a, int v) {
        for (int x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }
}
