package org.nccl4j.core.topo.connect;

/**
 * NCCL's trees of nodes ({@code ncclGetBtree}, {@code ncclGetDtree}): a binary tree rooted at 0
 * whose leaves and inner nodes alternate, and a second tree that is its mirror (even counts) or
 * its shift by one (odd counts), so that every rank is a leaf in at least one of the two.
 */
public final class DoubleBinaryTree {
    private DoubleBinaryTree() {
    }

    /**
     * The two trees seen from one rank.
     *
     * @param tree0 the binary tree
     * @param tree1 the mirrored or shifted tree
     */
    public record Links(BinaryTreeLinks tree0, BinaryTreeLinks tree1) {
    }

    /**
     * @param nRanks tree size (nodes)
     * @param rank   a position below {@code nRanks}
     * @return {@code rank}'s parent and children in the binary tree rooted at 0
     */
    public static BinaryTreeLinks btree(int nRanks, int rank) {
        int bit;
        for (bit = 1; bit < nRanks; bit <<= 1) {
            if ((bit & rank) != 0) {
                break;
            }
        }
        if (rank == 0) {
            // The root's only child is above it, hence child 1.
            return new BinaryTreeLinks(-1, -1, nRanks > 1 ? bit >> 1 : -1, BinaryTreeLinks.NO_PARENT);
        }
        int up = (rank ^ bit) | (bit << 1);
        if (up >= nRanks) {
            up = rank ^ bit;
        }
        int childType = rank < up ? 0 : 1;
        int lowBit = bit >> 1;
        int down0 = lowBit == 0 ? -1 : rank - lowBit;
        int down1 = lowBit == 0 ? -1 : rank + lowBit;
        // NCCL recomputes before halving, so rank + lowBit is tried twice: kept for identical trees.
        while (down1 >= nRanks) {
            down1 = lowBit == 0 ? -1 : rank + lowBit;
            lowBit >>= 1;
        }
        return new BinaryTreeLinks(up, down0, down1, childType);
    }

    /**
     * @param nRanks tree size (nodes)
     * @param rank   a position below {@code nRanks}
     * @return {@code rank}'s links in both trees
     */
    public static Links dtree(int nRanks, int rank) {
        BinaryTreeLinks tree0 = btree(nRanks, rank);
        BinaryTreeLinks t;
        BinaryTreeLinks tree1;
        if (nRanks % 2 == 1) {
            t = btree(nRanks, (rank - 1 + nRanks) % nRanks);
            tree1 = new BinaryTreeLinks(shift(t.up(), nRanks), shift(t.down0(), nRanks), shift(t.down1(), nRanks),
                    t.childType());
        } else {
            t = btree(nRanks, nRanks - 1 - rank);
            tree1 = new BinaryTreeLinks(mirror(t.up(), nRanks), mirror(t.down0(), nRanks), mirror(t.down1(), nRanks),
                    t.childType());
        }
        return new Links(tree0, tree1);
    }

    private static int shift(int r, int nRanks) {
        return r == -1 ? -1 : (r + 1) % nRanks;
    }

    private static int mirror(int r, int nRanks) {
        return r == -1 ? -1 : nRanks - 1 - r;
    }
}
