package org.nccl4j.core.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.kernel.RecursiveDoubling.Exchange;
import org.nccl4j.core.kernel.RecursiveDoubling.Kind;

class RecursiveDoublingTest {
    @Test
    void plansOfTwoToFourRanksAreTheKnownOnes() {
        assertEquals(List.of(new Exchange(1, Kind.ROUND)), RecursiveDoubling.plan(0, 2));
        assertEquals(List.of(new Exchange(2, Kind.ROUND), new Exchange(1, Kind.ROUND)), RecursiveDoubling.plan(3, 4));
        // Three ranks: rank 0 folds into 1, which runs the one round with 2, then gives back.
        assertEquals(List.of(new Exchange(1, Kind.FOLD_OUT), new Exchange(1, Kind.TAKE_BACK)),
                RecursiveDoubling.plan(0, 3));
        assertEquals(List.of(new Exchange(0, Kind.FOLD_IN), new Exchange(2, Kind.ROUND), new Exchange(0, Kind.GIVE_BACK)),
                RecursiveDoubling.plan(1, 3));
        assertEquals(List.of(new Exchange(1, Kind.ROUND)), RecursiveDoubling.plan(2, 3));
    }

    /**
     * For every size up to 64: partners mirror each other (a round with b at b's same round, a
     * fold-out with a fold-in, a give-back with a take-back, in the same order), every rank's
     * data reaches every other (simulated over sets of contributions), and the hops are those
     * the chooser prices.
     */
    @Test
    void everyPlanIsConsistentAndReducesEveryRanksData() {
        for (int n = 2; n <= 64; n++) {
            List<List<Exchange>> plans = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                plans.add(RecursiveDoubling.plan(r, n));
            }
            for (int r = 0; r < n; r++) {
                for (int e = 0; e < plans.get(r).size(); e++) {
                    Exchange x = plans.get(r).get(e);
                    assertTrue(x.peer() != r && x.peer() >= 0 && x.peer() < n, n + " ranks: rank " + r + " " + x);
                    Kind mirror = switch (x.kind()) {
                        case ROUND -> Kind.ROUND;
                        case FOLD_OUT -> Kind.FOLD_IN;
                        case FOLD_IN -> Kind.FOLD_OUT;
                        case GIVE_BACK -> Kind.TAKE_BACK;
                        case TAKE_BACK -> Kind.GIVE_BACK;
                    };
                    Exchange expected = new Exchange(r, mirror);
                    long matches = plans.get(x.peer()).stream().filter(expected::equals).count();
                    assertEquals(1, matches, n + " ranks: rank " + r + " " + x + " has no mirror at rank " + x.peer());
                }
            }
            assertEquals(Set.copyOf(range(n)), simulate(plans, n), n + " ranks");
            int longest = plans.stream().mapToInt(List::size).max().orElseThrow();
            assertEquals(longest, RecursiveDoubling.hops(n), n + " ranks");
        }
    }

    /** Runs the plans round by round on sets of contributions; returns what rank 0 ends with, after checking all agree. */
    private static Set<Integer> simulate(List<List<Exchange>> plans, int n) {
        List<Set<Integer>> have = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            have.add(new HashSet<>(Set.of(r)));
        }
        int[] at = new int[n];
        boolean moved = true;
        while (moved) {
            moved = false;
            for (int r = 0; r < n; r++) {
                if (at[r] >= plans.get(r).size()) {
                    continue;
                }
                Exchange x = plans.get(r).get(at[r]);
                int p = x.peer();
                // An exchange happens once both sides have reached it.
                if (at[p] >= plans.get(p).size() || plans.get(p).get(at[p]).peer() != r) {
                    continue;
                }
                Exchange y = plans.get(p).get(at[p]);
                Set<Integer> mine = new HashSet<>(have.get(r));
                Set<Integer> theirs = new HashSet<>(have.get(p));
                apply(have.get(r), x.kind(), theirs);
                apply(have.get(p), y.kind(), mine);
                at[r]++;
                at[p]++;
                moved = true;
            }
        }
        for (int r = 0; r < n; r++) {
            assertEquals(plans.get(r).size(), at[r], n + " ranks: rank " + r + " stuck");
            assertEquals(have.get(0), have.get(r), n + " ranks: rank " + r);
        }
        return have.get(0);
    }

    private static void apply(Set<Integer> have, Kind k, Set<Integer> received) {
        switch (k) {
            case ROUND, FOLD_IN -> have.addAll(received);
            case TAKE_BACK -> {
                have.clear();
                have.addAll(received);
            }
            case FOLD_OUT, GIVE_BACK -> { }
        }
    }

    private static List<Integer> range(int n) {
        List<Integer> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(i);
        }
        return l;
    }
}
