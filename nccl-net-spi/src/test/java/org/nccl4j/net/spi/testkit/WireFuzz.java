package org.nccl4j.net.spi.testkit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Hostile inputs for a port, from real messages of its protocol (the seeds): random bytes, seeds
 * cut short, with flipped bytes, with a length or count field set to an extreme, with garbage
 * after them, two run together, and seeds replayed verbatim. Seeded: the same seed gives the
 * same inputs, so a failing run replays.
 */
public final class WireFuzz {
    private static final int[] EXTREMES = {0, -1, 1, Integer.MAX_VALUE, Integer.MIN_VALUE, 1 << 30, 0x10001, 0x7fff};

    private final Random rnd;
    private final List<byte[]> seeds;

    /**
     * @param seed  the random seed (print it: it replays the run)
     * @param seeds real messages of the protocol, at least one
     */
    public WireFuzz(long seed, List<byte[]> seeds) {
        this.rnd = new Random(seed);
        this.seeds = List.copyOf(seeds);
    }

    /** @return the next input; the kind of mutation is chosen at random */
    public byte[] next() {
        byte[] s = seeds.get(rnd.nextInt(seeds.size()));
        switch (rnd.nextInt(7)) {
            case 0: {
                byte[] b = new byte[rnd.nextInt(300)];
                rnd.nextBytes(b);
                return b;
            }
            case 1:
                return Arrays.copyOf(s, rnd.nextInt(s.length + 1));
            case 2: {
                byte[] b = s.clone();
                for (int i = 1 + rnd.nextInt(8); i > 0 && b.length > 0; i--) {
                    b[rnd.nextInt(b.length)] ^= (byte) (1 + rnd.nextInt(255));
                }
                return b;
            }
            case 3: {
                byte[] b = s.clone();
                if (b.length >= 4) {
                    int at = rnd.nextInt(b.length - 3);
                    int v = EXTREMES[rnd.nextInt(EXTREMES.length)];
                    boolean little = rnd.nextBoolean();
                    for (int k = 0; k < 4; k++) {
                        b[at + k] = (byte) (v >>> (little ? 8 * k : 24 - 8 * k));
                    }
                }
                return b;
            }
            case 4: {
                byte[] tail = new byte[1 + rnd.nextInt(200)];
                rnd.nextBytes(tail);
                byte[] b = Arrays.copyOf(s, s.length + tail.length);
                System.arraycopy(tail, 0, b, s.length, tail.length);
                return b;
            }
            case 5: {
                byte[] t = seeds.get(rnd.nextInt(seeds.size()));
                byte[] b = Arrays.copyOf(s, s.length + t.length);
                System.arraycopy(t, 0, b, s.length, t.length);
                return b;
            }
            default:
                return s.clone();
        }
    }

    /**
     * @param n how many
     * @return the next {@code n} inputs
     */
    public List<byte[]> next(int n) {
        List<byte[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(next());
        }
        return out;
    }

    /** @return how many inputs per port a test sends: {@code -Dnccl4j.fuzz.inputs}, by default {@code dflt} */
    public static int inputsPerPort(int dflt) {
        return Integer.getInteger("nccl4j.fuzz.inputs", dflt);
    }

    /** @return the run's seed: {@code -Dnccl4j.fuzz.seed}, else the time (printed by the caller) */
    public static long seed() {
        return Long.getLong("nccl4j.fuzz.seed", System.nanoTime());
    }
}
