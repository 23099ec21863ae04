package org.nccl4j.core.topo.connect;

/** A channel's ring links ({@code struct ncclRing}): neighbours and the ring order seen from this rank. */
public final class Ring {
    /** Previous rank in the ring, -1 while unset. */
    public int prev = -1;
    /** Next rank in the ring, -1 while unset. */
    public int next = -1;
    /** The ring's ranks starting with this rank; {@code null} until {@link #setUserRanks} ran. */
    public int[] userRanks;
    /** This rank's distance from rank 0 along the ring. */
    public int index;

    /**
     * Orders the ring from this rank and records its distance from rank 0 (init.cc's
     * {@code setupChannel}).
     *
     * @param rank      this rank
     * @param ringRanks the ring as built by {@link RingBuilder}, {@code nRanks} entries
     */
    public void setUserRanks(int rank, int[] ringRanks) {
        int nRanks = ringRanks.length;
        int ixZero = 0;
        int ixRank = 0;
        for (int i = 0; i < nRanks; i++) {
            if (ringRanks[i] == 0) {
                ixZero = i;
            }
            if (ringRanks[i] == rank) {
                ixRank = i;
            }
        }
        index = (ixRank - ixZero + nRanks) % nRanks;
        userRanks = new int[nRanks];
        for (int i = 0; i < nRanks; i++) {
            userRanks[i] = ringRanks[(i + ixRank) % nRanks];
        }
    }

    void copyFrom(Ring src) {
        prev = src.prev;
        next = src.next;
        userRanks = src.userRanks == null ? null : src.userRanks.clone();
        index = src.index;
    }
}
