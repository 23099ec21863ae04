package org.nccl4j.core.topo.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DoubleBinaryTreeTest {
    /** The golden dump's marker for a child type that NCCL leaves unwritten (roots). */
    private static final int UNWRITTEN = -9;

    @Test
    void dtreeMatchesReferenceDump() {
        List<String> actual = new ArrayList<>();
        int[] sizes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 16};
        for (int n : sizes) {
            actual.add("nranks=" + n);
            for (int r = 0; r < n; r++) {
                DoubleBinaryTree.Links l = DoubleBinaryTree.dtree(n, r);
                actual.add(String.format("  r=%2d  T0 %s | T1 %s", r, dump(l.tree0()), dump(l.tree1())));
            }
        }
        List<String> expected = GoldenCase.read("golden/trees_dump.txt").lines().toList();
        assertEquals(String.join("\n", expected), String.join("\n", actual));
    }

    private static String dump(BinaryTreeLinks t) {
        int ct = t.childType() == BinaryTreeLinks.NO_PARENT ? UNWRITTEN : t.childType();
        return String.format("up=%2d down=%2d,%2d ct=%2d", t.up(), t.down0(), t.down1(), ct);
    }

    @Test
    void bothTreesSpanAllRanksWithConsistentLinks() {
        for (int n = 1; n <= 1024; n++) {
            BinaryTreeLinks[][] trees = new BinaryTreeLinks[2][n];
            for (int r = 0; r < n; r++) {
                DoubleBinaryTree.Links l = DoubleBinaryTree.dtree(n, r);
                trees[0][r] = l.tree0();
                trees[1][r] = l.tree1();
            }
            for (BinaryTreeLinks[] tree : trees) {
                checkTree(n, tree);
            }
            if (n > 2) {
                // Even sizes mirror, odd sizes shift: tree 1 of r is tree 0 of the image of r.
                for (int r = 0; r < n; r++) {
                    int image = n % 2 == 0 ? n - 1 - r : (r - 1 + n) % n;
                    BinaryTreeLinks t0 = trees[0][image];
                    BinaryTreeLinks t1 = trees[1][r];
                    assertEquals(map(t0.up(), n), t1.up(), "n=" + n + " r=" + r);
                    assertEquals(map(t0.down0(), n), t1.down0(), "n=" + n + " r=" + r);
                    assertEquals(map(t0.down1(), n), t1.down1(), "n=" + n + " r=" + r);
                }
            }
        }
    }

    private static int map(int r, int n) {
        if (r == -1) {
            return -1;
        }
        return n % 2 == 0 ? n - 1 - r : (r + 1) % n;
    }

    private static void checkTree(int n, BinaryTreeLinks[] tree) {
        int roots = 0;
        int[] parentsSeen = new int[n];
        for (int r = 0; r < n; r++) {
            BinaryTreeLinks t = tree[r];
            if (t.up() == -1) {
                roots++;
            } else {
                assertTrue(t.up() >= 0 && t.up() < n && t.up() != r, "n=" + n + " r=" + r);
                BinaryTreeLinks p = tree[t.up()];
                assertTrue(p.down0() == r || p.down1() == r, "n=" + n + ": " + t.up() + " does not list child " + r);
                assertEquals(p.down0() == r ? 0 : 1, t.childType(), "n=" + n + " r=" + r + " child type");
            }
            for (int child : new int[] {t.down0(), t.down1()}) {
                if (child != -1) {
                    assertTrue(child >= 0 && child < n, "n=" + n + " r=" + r);
                    assertEquals(r, tree[child].up(), "n=" + n + ": child " + child + " of " + r);
                    parentsSeen[child]++;
                }
            }
        }
        assertEquals(1, roots, "n=" + n + " roots");
        // Every rank but the root is reached from the root exactly once: the tree spans all ranks.
        int reached = 0;
        int[] stack = new int[n];
        int sp = 0;
        for (int r = 0; r < n; r++) {
            if (tree[r].up() == -1) {
                stack[sp++] = r;
            }
        }
        boolean[] seen = new boolean[n];
        while (sp > 0) {
            int r = stack[--sp];
            assertTrue(!seen[r], "n=" + n + ": cycle at " + r);
            seen[r] = true;
            reached++;
            for (int child : new int[] {tree[r].down0(), tree[r].down1()}) {
                if (child != -1) {
                    stack[sp++] = child;
                }
            }
        }
        assertEquals(n, reached, "n=" + n + " spanned");
        for (int r = 0; r < n; r++) {
            assertTrue(parentsSeen[r] <= 1, "n=" + n + ": " + r + " has several parents");
        }
    }
}
